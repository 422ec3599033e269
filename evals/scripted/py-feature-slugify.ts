import { byTurn, type Responder, type ScriptedTurn } from '../../tests/support/fake-messages-api.js';
import { edit, read, runTests } from './tools.js';

const SIGNATURE = 'def slugify(text):\n    """Lower-case ASCII words joined by dashes: "Hello, World!" becomes "hello-world"."""';
const BODY = '    return _NOT_ALPHANUMERIC.sub("-", ascii_text.lower()).strip("-")';
const NEW_SIGNATURE =
  'def slugify(text, max_length=None):\n    """Lower-case ASCII words joined by dashes: "Hello, World!" becomes "hello-world".\n\n' +
  '    With max_length, the slug is cut to at most that many characters, never ending in a dash.\n    """';
const NEW_BODY =
  '    slug = _NOT_ALPHANUMERIC.sub("-", ascii_text.lower()).strip("-")\n' +
  '    if max_length is not None:\n        slug = slug[:max_length].rstrip("-")\n    return slug';
const TESTS =
  '\n\ndef test_max_length_cuts_the_slug():\n    assert slugify("Hello World Again", max_length=11) == "hello-world"\n' +
  '\n\ndef test_a_cut_slug_never_ends_in_a_dash():\n    assert slugify("Hello World Again", max_length=6) == "hello"\n';
const LAST_TEST = '    assert slugify("  --Already sluggy--  ") == "already-sluggy"\n';

/** Reads, adds the parameter in one edit, adds tests, runs them. */
export const solve: Responder = byTurn([
  { text: 'Reading slugify and its tests.', toolCalls: [read('textkit/slug.py'), read('tests/test_slug.py')] },
  { text: 'Adding max_length.', toolCalls: [edit('textkit/slug.py', [SIGNATURE, NEW_SIGNATURE], [BODY, NEW_BODY])] },
  { text: 'Tests for it.', toolCalls: [edit('tests/test_slug.py', [LAST_TEST, `${LAST_TEST}${TESTS}`])] },
  { text: 'Running the tests.', toolCalls: [runTests()] },
  { text: 'slugify(text, max_length=None) cuts the slug to max_length and strips a trailing dash; tests added and passing.' },
]);

/**
 * The same change reached the long way: one file per look, the tests after every small step. It ends right, and
 * takes more iterations than the case allows.
 */
export const plod: Responder = byTurn([
  { text: 'Looking around.', toolCalls: [read('pyproject.toml')] },
  { toolCalls: [read('textkit/__init__.py')] },
  { toolCalls: [read('textkit/slug.py')] },
  { toolCalls: [read('tests/test_slug.py')] },
  { text: 'Checking the tests pass before I start.', toolCalls: [runTests()] },
  ...steps(),
  { text: 'max_length added, step by step, with tests.' },
]);

function steps(): ScriptedTurn[] {
  const partial = 'def slugify(text, max_length=None):';
  const edits: [string, [string, string]][] = [
    ['textkit/slug.py', ['def slugify(text):', partial]],
    ['textkit/slug.py', [BODY, '    slug = _NOT_ALPHANUMERIC.sub("-", ascii_text.lower()).strip("-")\n    return slug']],
    ['textkit/slug.py', ['    return slug', '    if max_length is not None:\n        slug = slug[:max_length]\n    return slug']],
    ['textkit/slug.py', ['        slug = slug[:max_length]', '        slug = slug[:max_length].rstrip("-")']],
    ['tests/test_slug.py', [LAST_TEST, `${LAST_TEST}${TESTS}`]],
  ];
  return edits.flatMap(([file, change]) => [{ toolCalls: [edit(file, change)] }, { toolCalls: [runTests()] }]);
}
