import type { Edit } from './types.js';

/**
 * The edit with `\n` line breaks. Models add or drop a final newline on one side of a block by accident, which would
 * join two lines or leave a stray blank one, so a non-empty `replace` ends with a newline exactly when `search` does.
 */
export function normalizeEdit(edit: Edit): Edit {
  const search = edit.search.replace(/\r\n/g, '\n');
  let replace = edit.replace.replace(/\r\n/g, '\n');
  if (replace !== '' && search.endsWith('\n') && !replace.endsWith('\n')) replace += '\n';
  else if (replace !== '' && !search.endsWith('\n') && replace.endsWith('\n')) replace = replace.slice(0, -1);
  return { search, replace };
}
