import { byTurn, type Responder, type ScriptedTurn } from './fake-messages-api.js';

/**
 * A session whose tool calls mostly read one of twenty ~`outputBytes` files, so history grows as real sessions do;
 * every fourth call is a small edit, as an agent that reads and writes (not one stuck reading) would make. Each turn
 * says "step N", and the next turn follows the last step in the request, so the script stays in order even after a
 * compaction summarised the earlier turns away.
 */
export function largeOutputSession(iterations: number): Responder {
  return (request) => {
    const said = request.body.messages
      .filter((message) => message.role === 'assistant')
      .flatMap((message) =>
        typeof message.content === 'string' ? [message.content] : message.content.map((block) => String(block.text ?? '')),
      )
      .map((text) => /^step (\d+)$/.exec(text)?.[1])
      .filter((step): step is string => step !== undefined);
    const index = said.length ? Number(said[said.length - 1]) + 1 : 0;
    if (index >= iterations - 1) return { text: 'done' };
    const call =
      index % 4 === 3
        ? { name: 'edit_file', input: { path: 'NOTES.md', edits: [{ search: 'end of notes', replace: `step ${index}\nend of notes` }] } }
        : { name: 'read_file', input: { path: `chunks/c${index % 20}.txt` } };
    return { text: `step ${index}`, toolCalls: [call] };
  };
}

/** Twenty distinct text files of about `outputBytes` each: distinct so no two tool results are the same bytes. */
export function chunkFiles(outputBytes: number): Record<string, string> {
  const files: Record<string, string> = {};
  for (let chunk = 0; chunk < 20; chunk++) {
    const lines: string[] = [];
    for (let line = 0; Buffer.byteLength(lines.join('\n')) < outputBytes - 80; line++) {
      lines.push(`chunk ${chunk} line ${line}: the quick brown fox jumps over the lazy dog ${line * 7919 + chunk}`);
    }
    files[`chunks/c${chunk}.txt`] = `${lines.join('\n')}\n`;
  }
  files['NOTES.md'] = '# notes\nend of notes\n';
  return files;
}

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
