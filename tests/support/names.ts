import { randomUUID } from 'node:crypto';

/** A name no other test or bench run uses: `prefix` and eight random hex digits. Free of vitest, for the benches. */
export const uniqueName = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;
