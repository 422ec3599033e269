import type { Responder } from '../../tests/support/fake-messages-api.js';
import * as pyBlockerCurrency from './py-blocker-currency.js';
import * as pyBugfixMedian from './py-bugfix-median.js';
import * as pyConfigPytestMarker from './py-config-pytest-marker.js';
import * as pyFeatureSlugify from './py-feature-slugify.js';
import * as pyRefactorMoveModule from './py-refactor-move-module.js';
import * as pyTrackerGreenfield from './py-tracker-greenfield.js';
import * as tsBugfixDuration from './ts-bugfix-duration.js';
import * as tsConfigScript from './ts-config-script.js';
import * as tsFeatureCartDiscount from './ts-feature-cart-discount.js';
import * as tsRefactorRename from './ts-refactor-rename.js';

/**
 * Scripted sessions for the built-in suite, by case id: `solve` does the task the way the agent would (tool call by
 * tool call) and is what evals/recordings/ were recorded from; the others fail it in the ways the checks exist for.
 */
export const scriptedSessions = {
  'py-tracker-greenfield': pyTrackerGreenfield,
  'py-bugfix-median': pyBugfixMedian,
  'py-feature-slugify': pyFeatureSlugify,
  'py-refactor-move-module': pyRefactorMoveModule,
  'py-blocker-currency': pyBlockerCurrency,
  'py-config-pytest-marker': pyConfigPytestMarker,
  'ts-bugfix-duration': tsBugfixDuration,
  'ts-feature-cart-discount': tsFeatureCartDiscount,
  'ts-refactor-rename': tsRefactorRename,
  'ts-config-script': tsConfigScript,
} satisfies Record<string, { solve: Responder }>;

/** Every case's `solve` session. */
export const solvingSessions = (): Record<string, Responder> =>
  Object.fromEntries(Object.entries(scriptedSessions).map(([id, sessions]) => [id, sessions.solve]));
