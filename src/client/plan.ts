import { randomUUID } from 'node:crypto';
import path from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { getPlanStateQuery } from '../shared/messages.js';
import { parsePlanInput } from '../shared/plan.js';
import type { PlanStateSnapshot } from '../shared/plan-state.js';
import type { planWorkflow } from '../workflows/index.js';
import { readInputFile } from './input-file.js';
import { CliError, emit, parseOrExplain, type OutputOptions } from './output.js';
import { shownLink, webUiUrl } from './web-ui.js';
import { pause, Progress } from './progress.js';
import { queryOrUndefined } from '../reads/task-reads.js';
import { cliConfig, clientTaskQueue, withClient } from './session.js';

export interface PlanOptions extends OutputOptions {
  workspace: string;
  start?: boolean;
  maxParallel?: string;
  maxTasks?: string;
  model?: string;
  maxCostUsd?: string;
  id?: string;
  wait?: boolean;
}

const POLL_MS = 500;

/**
 * `codeloop plan PRD`: starts `planWorkflow` with the PRD's text, then (unless `--no-wait`) shows progress until the
 * plan is up for review and prints it with the commands that approve or reject it.
 */
export async function startPlan(prdFile: string, options: PlanOptions): Promise<void> {
  const input = parseOrExplain(parsePlanInput, {
    workspace: path.resolve(options.workspace),
    prd: readInputFile(prdFile, 'the PRD'),
    start: options.start ?? false,
    maxParallel: numberOf(options.maxParallel),
    maxTasks: numberOf(options.maxTasks),
    model: options.model,
    maxCostUsd: numberOf(options.maxCostUsd),
  });
  const workflowId =
    options.id ??
    `plan-${path
      .basename(prdFile)
      .replace(/\.[^.]+$/, '')
      .replace(/[^A-Za-z0-9._-]/g, '-')}-${randomUUID().slice(0, 8)}`;
  await withClient(async (client, namespace) => {
    const handle = await client.workflow.start<typeof planWorkflow>('planWorkflow', {
      args: [input],
      taskQueue: clientTaskQueue(),
      workflowId,
      staticSummary: `plan from ${path.basename(prdFile)}`,
      staticDetails: input.prd!.slice(0, 2_000),
    });
    const url = webUiUrl(cliConfig(), namespace, workflowId);
    if (options.wait === false) {
      emit(
        options,
        { workflowId, url },
        () => `started ${workflowId}\n  web UI:  ${shownLink(url)}\n  show:    npx codeloop plan show ${workflowId}`,
      );
      return;
    }
    const state = await waitForReview(client, handle, options.json ? undefined : new Progress());
    emit(options, { workflowId, url, ...state }, (value) => renderPlan(workflowId, value, url));
  });
}

/** `codeloop plan show ID`: the plan's state, its tree, and what to do next. */
export async function showPlan(workflowId: string, options: OutputOptions): Promise<void> {
  await withClient(async (client, namespace) => {
    const state = await queryOrUndefined(client, client.workflow.getHandle(workflowId), getPlanStateQuery);
    if (!state || state.kind !== 'plan')
      throw new CliError(`${workflowId} is not a plan, or no worker answered; start one with npx codeloop plan`);
    const url = webUiUrl(cliConfig(), namespace, workflowId);
    emit(options, { workflowId, url, ...state }, (value) => renderPlan(workflowId, value, url));
  });
}

/** Polls until the plan waits for a human or has ended; a failed plan is an error with the workflow's own message. */
async function waitForReview(client: Client, handle: WorkflowHandle, progress?: Progress): Promise<PlanStateSnapshot> {
  for (;;) {
    const state = await queryOrUndefined(client, handle, getPlanStateQuery);
    if (state && (state.openBlockers.length > 0 || state.status === 'completed')) {
      progress?.clear();
      return state;
    }
    const { status } = await handle.describe();
    if (status.name !== 'RUNNING' && status.name !== 'COMPLETED') {
      progress?.clear();
      const failure = await handle.result().then(
        () => 'ended',
        (error: Error) => (error.cause as Error | undefined)?.message ?? error.message,
      );
      throw new CliError(`plan ${handle.workflowId} ${status.name.toLowerCase()}: ${failure}`);
    }
    progress?.status(
      state ? `planning: draft ${state.drafts}, ${state.turns} model turns, $${state.costUsd.toFixed(4)}` : 'waiting for a worker',
    );
    await pause(POLL_MS);
  }
}

export function renderPlan(workflowId: string, state: PlanStateSnapshot, url: string | undefined): string {
  const lines = [`plan ${state.planId} (${workflowId}): ${state.status}, ${state.phase}`, `  web UI:  ${shownLink(url)}`];
  const open = state.openBlockers[0];
  if (open) {
    lines.push('', open.question, '');
    lines.push(`  approve: npx codeloop blockers answer ${workflowId} approve`);
    lines.push(`  reject:  npx codeloop blockers answer ${workflowId} "reject <why>"`);
  } else if (state.tree) {
    lines.push('', state.tree);
  }
  if (state.planFile) lines.push('', `plan file: ${state.planFile} (npx codeloop batch start ${state.planFile}, from the workspace)`);
  if (state.batchWorkflowId) lines.push(`batch:     ${state.batchWorkflowId} (npx codeloop batch follow ${state.batchWorkflowId})`);
  return lines.join('\n');
}

function numberOf(text: string | undefined): number | undefined {
  return text === undefined ? undefined : Number(text);
}
