import { convertLineEndings, joinLines, spliceLines, splitBlock } from './line-endings.js';
import type { Location } from './locate.js';
import { reindentLines } from './reindent.js';
import type { TextDocument } from './text-document.js';
import type { Edit } from './types.js';

/**
 * The document's content with the matched place replaced. An exact match swaps characters; the other levels swap
 * whole lines and move the replacement to the file's own indentation, since the search block's was wrong.
 * Either way new line breaks follow the file's style.
 */
export function replaceMatch(document: TextDocument, location: Location, edit: Edit): string {
  if (location.level === 'exact') {
    const { content } = document;
    const replacement = convertLineEndings(edit.replace, document.eol);
    return content.slice(0, location.offset) + replacement + content.slice(location.offset + location.length);
  }
  const matched = document.lines.slice(location.start, location.start + location.count).map((line) => line.text);
  const texts = reindentLines(splitBlock(edit.replace), splitBlock(edit.search), matched);
  return joinLines(spliceLines(document.lines, location.start, location.count, texts, document.eol));
}
