/**
 * Documents many tasks add to, each a section or an entry: README, a changelog, release notes, contributing notes,
 * at any depth. A plan does not order tasks that share only these, and the batch merges their additions as text.
 */
const SHARED_DOCUMENT = /(^|\/)(README|CHANGELOG|CHANGES|HISTORY|NEWS|RELEASE[-_]?NOTES|CONTRIBUTING)(\.(md|markdown|rst|txt))?$/i;

export const isSharedDocument = (file: string): boolean => SHARED_DOCUMENT.test(file);
