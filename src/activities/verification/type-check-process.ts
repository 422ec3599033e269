/**
 * The type-check process: codeloop's incremental TypeScript checker, run apart from the worker (see `type-check.ts`),
 * so that parsing a repository's sources can neither stall the worker's event loop (and every heartbeat on it) nor
 * take its heap. Requests come over the IPC channel and each reply carries its request's id: a baseline's check gives
 * way between files, so an edit's check asked meanwhile is answered before it.
 */
import { baselineTypeCheck, checkTypes, parseTypeCheck, ProjectTooLarge, type CommittedText } from './type-check-engine.js';

export type TypeCheckRequest =
  | { id: number; kind: 'parse' | 'baseline'; workspace: string }
  | { id: number; kind: 'check'; workspace: string; file: string; committed: CommittedText };

export type TypeCheckReply =
  { id: number; ok: true; result?: ReturnType<typeof checkTypes> } | { id: number; ok: false; tooLarge: boolean; message: string };

async function answer(request: TypeCheckRequest): Promise<TypeCheckReply> {
  try {
    if (request.kind === 'check')
      return { id: request.id, ok: true, result: checkTypes(request.workspace, request.file, request.committed) };
    if (request.kind === 'parse') parseTypeCheck(request.workspace);
    else await baselineTypeCheck(request.workspace);
    return { id: request.id, ok: true };
  } catch (error) {
    return { id: request.id, ok: false, tooLarge: error instanceof ProjectTooLarge, message: (error as Error).message };
  }
}

process.on('message', (request: TypeCheckRequest) => void answer(request).then((reply) => process.send!(reply)));
process.on('disconnect', () => process.exit(0));
