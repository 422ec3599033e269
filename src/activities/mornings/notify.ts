import { ApplicationFailure } from '@temporalio/common';
import nodemailer from 'nodemailer';
import { ErrorType } from '../../shared/errors.js';
import type { NotifyTarget } from '../../shared/mornings.js';

export interface MorningMessage {
  title: string;
  text: string;
  /** The figures behind the text, for a generic webhook's consumer. */
  data: Record<string, unknown>;
}

/** How a target is named in the batch result: its kind and where it goes, never a secret URL. */
export function describeTarget(target: NotifyTarget): string {
  if (target.kind === 'email') return `email to ${target.to.join(', ')}`;
  return target.urlEnv ? `${target.kind} ($${target.urlEnv})` : `${target.kind} ${new URL(target.url!).host}`;
}

function urlOf(target: { url?: string; urlEnv?: string }, env: NodeJS.ProcessEnv): string {
  const url = target.url ?? env[target.urlEnv!];
  if (!url) throw ApplicationFailure.nonRetryable(`${target.urlEnv} is not set on this worker`, ErrorType.NotifyFailed);
  return url;
}

async function post(url: string, body: unknown): Promise<void> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'user-agent': 'codeloop' },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(30_000),
  });
  if (!response.ok) throw new Error(`the webhook answered ${response.status}: ${(await response.text()).slice(0, 200)}`);
}

/**
 * Sends the morning message to one target. A failure is retried by the activity's policy; the batch records the
 * last one and goes on.
 */
export async function deliverNotification(input: { target: NotifyTarget; message: MorningMessage }, env: NodeJS.ProcessEnv): Promise<void> {
  const { target, message } = input;
  if (target.kind === 'slack') return post(urlOf(target, env), { text: `*${message.title}*\n${message.text}` });
  if (target.kind === 'webhook') return post(urlOf(target, env), { title: message.title, text: message.text, ...message.data });
  const smtp = env.CODELOOP_SMTP_URL;
  if (!smtp) throw ApplicationFailure.nonRetryable('CODELOOP_SMTP_URL is not set on this worker', ErrorType.NotifyFailed);
  const transport = nodemailer.createTransport(smtp);
  try {
    await transport.sendMail({
      from: target.from ?? env.CODELOOP_SMTP_FROM ?? 'codeloop@localhost',
      to: target.to,
      subject: message.title,
      text: message.text,
    });
  } finally {
    transport.close();
  }
}
