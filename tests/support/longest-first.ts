import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The suite's longest files, longest first, as measured on a clean clone (30-70 s each on two cores). Vitest starts
 * files it has no timings for largest first, and on a clean clone it has none: these files are small, so they started
 * last and ran alone for the last half minute. Started first, they run beside the short ones instead.
 */
export const LONGEST_FILES = [
  'tests/workflows/batch-model-outage.test.ts',
  'tests/payloads/payload-store-task.test.ts',
  'tests/workflows/crash-recovery.test.ts',
  'tests/workflows/compaction.test.ts',
  'tests/client/readme-plan-git.test.ts',
  'tests/workflows/batch.test.ts',
  'tests/workflows/batch-conflict-rerun.test.ts',
  'tests/client/readme-commands.test.ts',
  'tests/workflows/verification.test.ts',
  'tests/workflows/batch-scale.test.ts',
  'tests/client/schedules.test.ts',
  'tests/workflows/batch-durability.test.ts',
  'tests/workflows/agent-task.test.ts',
];

const checkout = fileURLToPath(new URL('../..', import.meta.url));
for (const name of LONGEST_FILES) {
  if (!existsSync(checkout + name))
    throw new Error(`${name} is listed in tests/support/longest-first.ts but does not exist: update the list`);
}

/** Vitest's own order (timings from earlier runs where it has them), with `LONGEST_FILES` moved to the front. */
export default class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (file: TestSpecification) => {
      const index = LONGEST_FILES.findIndex((name) => file.moduleId.endsWith(name));
      return index === -1 ? LONGEST_FILES.length : index;
    };
    return sorted
      .map((file, position) => ({ file, position }))
      .sort((a, b) => rank(a.file) - rank(b.file) || a.position - b.position)
      .map(({ file }) => file);
  }
}
