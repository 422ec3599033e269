import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { ExecutedCall } from '../../src/workflows/common/tool-calls.js';
import { isToolName, type ToolName } from '../../src/shared/tools.js';

/** The recordings of a capable model working through codeloop's eval suite (see their README). */
export const MODEL_SESSIONS_DIR = path.resolve('tests/fixtures/model-sessions');

interface Block {
  type: string;
  text?: string;
  id?: string;
  name?: string;
  input?: unknown;
  tool_use_id?: string;
  content?: string | { type: string; text?: string }[];
  is_error?: boolean;
}

/** One assistant turn of a recorded session and, when it called tools, what came back. */
export interface SessionTurn {
  text: string;
  executed: ExecutedCall[];
}

export interface ModelSession {
  name: string;
  /** The system prompt of the session's first request, as the model saw it. */
  system: string;
  turns: SessionTurn[];
}

const textOf = (content: Block['content']) =>
  typeof content === 'string' ? content : (content ?? []).map((block) => block.text ?? '').join('\n');

/** A lint block in an edit's result, as the tool appended it. */
const LINT = /\n\n(?:LINT ERRORS \(must fix\)|TYPE ERRORS) from [^\n]*:\n([\s\S]*)$/;

/**
 * Reads a recording into its turns: the last request holds the whole conversation, and its response the final
 * turn. Tool results become the outcomes the workflow saw (`changedFile` for a successful write, `lintErrors` when
 * the result carries a lint block), and codeloop's own notes in the user messages are left out: they are what the
 * guards said then, not what the model did.
 */
export function readModelSession(file: string): ModelSession {
  const entries = readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line.trim())
    .map(
      (line) =>
        JSON.parse(line) as {
          request: { system: { text: string }[]; messages: { role: string; content: Block[] }[] };
          response: { content: Block[] };
        },
    );
  const last = entries.at(-1)!;
  const messages = [...last.request.messages, { role: 'assistant', content: last.response.content }];
  const turns: SessionTurn[] = [];
  messages.forEach((message, index) => {
    if (message.role !== 'assistant') return;
    const results = new Map(
      (messages[index + 1]?.content ?? []).filter((block) => block.type === 'tool_result').map((block) => [block.tool_use_id, block]),
    );
    const executed = message.content
      .filter((block) => block.type === 'tool_use')
      .map((block): ExecutedCall => {
        const result = results.get(block.id);
        const content = textOf(result?.content);
        const isError = result?.is_error === true;
        const input = block.input as { path?: string };
        const writes = block.name === 'edit_file' || block.name === 'create_file';
        const lint = LINT.exec(content);
        return {
          call: { type: 'tool_use', id: block.id!, name: block.name!, input: block.input },
          ...(isToolName(block.name!) ? { name: block.name as ToolName } : {}),
          input: block.input,
          summary: block.name!,
          outcome: {
            content,
            isError,
            ...(writes && !isError && input.path ? { changedFile: input.path } : {}),
            ...(lint ? { lintErrors: lint[1] } : {}),
          },
        };
      });
    const text = message.content
      .filter((block) => block.type === 'text')
      .map((block) => block.text ?? '')
      .join('\n')
      .trim();
    turns.push({ text, executed });
  });
  return { name: path.basename(file, '.jsonl'), system: entries[0]!.request.system.map((block) => block.text).join('\n'), turns };
}

export function readModelSessions(): ModelSession[] {
  return readdirSync(MODEL_SESSIONS_DIR)
    .filter((name) => name.endsWith('.jsonl'))
    .sort()
    .map((name) => readModelSession(path.join(MODEL_SESSIONS_DIR, name)));
}
