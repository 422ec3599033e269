import { describe, expect, test } from 'vitest';
import { introducedLineNumbers, readPastedNumbers } from '../../../src/activities/editor/pasted-line-numbers.js';
import { finalSignal, finalTurnBlocker } from '../../../src/workflows/task/final-question.js';
import { Guards } from '../../../src/workflows/task/guards.js';
import { fileCountOf, readTurnBudget } from '../../../src/workflows/task/progress-watch.js';
import type { ToolInput } from '../../../src/shared/tools.js';
import { readModelSessions, type ModelSession } from '../../support/model-sessions.js';

const sessions = readModelSessions();

/** The read budget the workflow would give the session's workspace, from the file tree in its prompt. */
function readBudgetOf(session: ModelSession): number {
  const tree = /## Files \(up to 3 levels\)\n([\s\S]*?)\n\n# /.exec(session.system)?.[1] ?? '';
  return readTurnBudget(fileCountOf(tree));
}

/** Every verdict the guards give over the session's turns, in order, with the turn they came after. */
function guardVerdicts(session: ModelSession, judgesProgress: boolean) {
  const guards = new Guards(undefined, () => judgesProgress);
  return session.turns
    .map((turn, index) => ({
      turn: index + 1,
      verdict: turn.executed.length ? guards.afterTools(turn.executed, index + 1, readBudgetOf(session)) : {},
    }))
    .filter(({ verdict }) => verdict.nudge || verdict.escalate);
}

test('there are ten recorded sessions of a capable model, with their turns', () => {
  expect(sessions.map((session) => session.name)).toHaveLength(10);
  for (const session of sessions) expect(session.turns.filter((turn) => turn.executed.length).length).toBeGreaterThan(1);
});

describe.each(sessions.map((session) => [session.name, session] as const))('%s', (_name, session) => {
  test('the guards neither nudge nor escalate', () => {
    expect(guardVerdicts(session, true)).toEqual([]);
  });

  test('its final turn completes: no blocker, with its changes and green gates, and no need for a human at all', () => {
    const final = session.turns.at(-1)!;
    expect(final.executed).toEqual([]);
    const changed = session.turns.some((turn) => turn.executed.some(({ outcome }) => outcome.changedFile));
    expect(finalTurnBlocker(final.text, { changed, gatesFailing: false })).toBeUndefined();
    expect(finalSignal(final.text)).toBeUndefined();
  });

  test('no edit carries pasted line numbers, and none is refused for looking like it does', () => {
    const edits = session.turns.flatMap((turn) =>
      turn.executed.filter(({ name }) => name === 'edit_file').flatMap(({ input }) => (input as ToolInput<'edit_file'>).edits),
    );
    for (const edit of edits) {
      expect(readPastedNumbers(edit)).toEqual({ kind: 'none' });
      expect(introducedLineNumbers(edit.search, edit.replace, true)).toEqual([]);
    }
  });
});

test('the guards that counted calls misfired on these sessions: a nudge for reading in parallel', () => {
  const misfires = sessions.flatMap((session) =>
    guardVerdicts(session, false).map(({ verdict }) => `${session.name}: ${verdict.nudge ?? verdict.escalate?.question}`),
  );
  expect(misfires).toEqual([
    expect.stringMatching(/^py-refactor-move-module: Note from codeloop: your last 5 tool calls only read/),
    expect.stringMatching(/^ts-refactor-rename: Note from codeloop: your last 5 tool calls only read/),
  ]);
});
