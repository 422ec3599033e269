import { byTurn, type Responder } from '../../tests/support/fake-messages-api.js';
import { ask, edit, read, runTests } from './tools.js';

/** Reads the settings, changes the one line and adds the marker, runs the tests. */
export const solve: Responder = byTurn([
  { text: 'Reading the pytest settings.', toolCalls: [read('pyproject.toml')] },
  {
    text: 'Registering the marker and turning on --strict-markers, nothing else.',
    toolCalls: [
      edit('pyproject.toml', [
        'addopts = "-ra"',
        'addopts = "-ra --strict-markers"\nmarkers = [\n    "slow: tests that take more than a second",\n]',
      ]),
    ],
  },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'Registered the slow marker in [tool.pytest.ini_options] and added --strict-markers to addopts; the warning is gone.' },
]);

/** Stops to ask a question the case file has no answer for: the eval ends the run instead of guessing. */
export const askUnanswerable: Responder = byTurn([
  { text: 'Reading the pytest settings.', toolCalls: [read('pyproject.toml')] },
  { toolCalls: [ask('Should slow tests be skipped by default, or only marked?')] },
]);
