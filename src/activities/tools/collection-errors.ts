/** One reason pytest could not collect test files, and the files it stopped. */
export interface CollectionError {
  /** The exception line (`ModuleNotFoundError: No module named 'freezegun'`), not the traceback's header. */
  cause: string;
  files: string[];
}

const HEADER = /^_{3,} ERROR collecting (.+?) _{3,}$/;
const FILES_SHOWN = 3;

/**
 * The collection errors of a pytest run, one per distinct cause: pytest prints a section per file (`___ ERROR
 * collecting tests/test_a.py ___`) whose last `E   ` line says why, and a run where one missing module stops twenty
 * files is one cause, not twenty tracebacks.
 */
export function collectionErrors(output: string): CollectionError[] {
  const lines = output.split(/\r?\n/);
  const byCause = new Map<string, string[]>();
  lines.forEach((line, index) => {
    const file = HEADER.exec(line)?.[1];
    if (!file) return;
    const rest = lines.slice(index + 1);
    const end = rest.findIndex((next) => HEADER.test(next) || /^={3,}/.test(next));
    const section = end === -1 ? rest : rest.slice(0, end);
    const exceptionLines = section.filter((next) => next.startsWith('E '));
    const cause = (exceptionLines.at(-1)?.slice(1) ?? section.find((next) => next.trim() !== '') ?? 'unknown error').trim();
    byCause.set(cause, [...(byCause.get(cause) ?? []), file]);
  });
  return [...byCause].map(([cause, files]) => ({ cause, files }));
}

/** One line per cause: `ModuleNotFoundError: No module named 'freezegun' (tests/test_b.py, tests/test_c.py)`. */
export function describeCollectionErrors(errors: CollectionError[]): string[] {
  return errors.map(({ cause, files }) => {
    const shown = files.slice(0, FILES_SHOWN).join(', ');
    const more = files.length > FILES_SHOWN ? ` and ${files.length - FILES_SHOWN} more` : '';
    return `${cause} (${shown}${more})`;
  });
}
