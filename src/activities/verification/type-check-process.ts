/**
 * The type-check process: codeloop's incremental TypeScript checker, run apart from the worker (see `type-check.ts`),
 * so that parsing a repository's sources can neither stall the worker's event loop (and every heartbeat on it) nor
 * take its heap. One request at a time over the IPC channel; a request's reply carries its id.
 */
import { checkTypes, prepareTypeCheck, ProjectTooLarge, type CommittedText } from './type-check-engine.js';

export type TypeCheckRequest =
  | { id: number; kind: 'prepare'; workspace: string }
  | { id: number; kind: 'check'; workspace: string; file: string; committed: CommittedText };

export type TypeCheckReply =
  { id: number; ok: true; result?: ReturnType<typeof checkTypes> } | { id: number; ok: false; tooLarge: boolean; message: string };

function answer(request: TypeCheckRequest): TypeCheckReply {
  try {
    if (request.kind === 'prepare') {
      prepareTypeCheck(request.workspace);
      return { id: request.id, ok: true };
    }
    return { id: request.id, ok: true, result: checkTypes(request.workspace, request.file, request.committed) };
  } catch (error) {
    return { id: request.id, ok: false, tooLarge: error instanceof ProjectTooLarge, message: (error as Error).message };
  }
}

process.on('message', (request: TypeCheckRequest) => process.send!(answer(request)));
process.on('disconnect', () => process.exit(0));
