import { byTurn, type Responder, type ScriptedTurn } from '../tests/support/fake-messages-api.js';

/**
 * A session of `iterations` model turns: each but the last calls one tool, cycling through a read, an edit that
 * flips a value back and forth, a search and a command; the last turn finishes.
 */
export function cyclingSession(iterations: number): Responder {
  const turns: ScriptedTurn[] = [];
  for (let index = 0; index < iterations - 1; index++) {
    const flip = index % 8 < 4 ? ['value = 1', 'value = 2'] : ['value = 2', 'value = 1'];
    const calls = [
      { name: 'read_file', input: { path: 'app.py' } },
      { name: 'edit_file', input: { path: 'app.py', edits: [{ search: flip[0], replace: flip[1] }] } },
      { name: 'search_codebase', input: { pattern: 'value' } },
      { name: 'run_command', input: { command: 'echo ok' } },
    ];
    turns.push({ text: `step ${index + 1}`, toolCalls: [calls[index % 4]] });
  }
  turns.push({ text: 'done' });
  return byTurn(turns);
}
