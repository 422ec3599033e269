import { ApplicationFailure } from '@temporalio/common';
import nodemailer from 'nodemailer';
import { ErrorType } from '../../shared/errors.js';
import type { BatchResult } from '../../shared/batch-state.js';
import type { NotifyTarget } from '../../shared/mornings.js';
import { batchSummaryLine, morningTitle, renderMorningText } from '../../text/morning-report.js';
import { batchPageUrl } from './publish-branch.js';

/** What the morning message is made from: the batch's result and the pull requests its publishing opened. */
export interface MorningNews {
  result: BatchResult;
  pullRequests: string[];
}

/** The message: a title, the text (the budget first, then the figures `codeloop report` gives) and, for a JSON webhook, the figures. */
function messageOf(news: MorningNews, env: NodeJS.ProcessEnv) {
  const uiUrl = batchPageUrl(env);
  const { result } = news;
  return {
    title: morningTitle(result),
    text: renderMorningText({ result, uiUrl, pullRequests: news.pullRequests }),
    data: {
      batchId: result.batchId,
      status: result.status,
      summary: batchSummaryLine(result),
      tasks: result.totals.tasks,
      costUsd: result.totals.costUsd,
      ...(result.budget ? { budget: result.budget } : {}),
      pullRequests: news.pullRequests,
      ...(uiUrl ? { uiUrl } : {}),
    },
  };
}

function urlOf(target: { url?: string; urlEnv?: string }, env: NodeJS.ProcessEnv): string {
  const url = target.url ?? env[target.urlEnv!];
  if (!url) throw ApplicationFailure.nonRetryable(`${target.urlEnv} is not set on this worker`, ErrorType.NotifyFailed);
  return url;
}

async function post(url: string, body: unknown, key: string): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'codeloop', 'idempotency-key': key },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`the webhook answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
}

/**
 * Sends the morning message to one target. A failure is retried by the activity's policy; the batch records the
 * last one and goes on. `key` is the same on every attempt of one delivery: a worker that died after sending leaves
 * a second message that its receiver can tell for the same one, by the webhook's `Idempotency-Key` header or the
 * mail's `Message-ID`.
 */
export async function deliverNotification(
  input: { target: NotifyTarget; news: MorningNews },
  env: NodeJS.ProcessEnv,
  key: string,
): Promise<void> {
  const { target } = input;
  const message = messageOf(input.news, env);
  if (target.kind === 'slack') return post(urlOf(target, env), { text: `*${message.title}*\n${message.text}` }, key);
  if (target.kind === 'webhook') return post(urlOf(target, env), { title: message.title, text: message.text, ...message.data }, key);
  const smtp = env.CODELOOP_SMTP_URL;
  if (!smtp) throw ApplicationFailure.nonRetryable('CODELOOP_SMTP_URL is not set on this worker', ErrorType.NotifyFailed);
  const transport = nodemailer.createTransport(smtp);
  try {
    await transport.sendMail({
      from: target.from ?? env.CODELOOP_SMTP_FROM ?? 'codeloop@localhost',
      to: target.to,
      subject: message.title,
      text: message.text,
      messageId: `<${key}@codeloop>`,
    });
  } finally {
    transport.close();
  }
}
