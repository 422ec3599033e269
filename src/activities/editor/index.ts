export { applyEdits } from './apply-edits.js';
export type { Edit, EditOutcome, MatchLevel } from './types.js';
