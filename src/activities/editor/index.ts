export { applyEdits } from './apply-edits.js';
export type { ApplyOptions, Edit, EditOutcome, MatchLevel } from './types.js';
