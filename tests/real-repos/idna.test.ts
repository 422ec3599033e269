import { describeRealRepo } from './sessions.js';

// A unittest suite (tests/ is a package of unittest.TestCase classes, 6,256 tests), run as its own CI runs it:
// `python3 -m unittest`, named in codeloop.json. The wrong edit breaks the label length check.
describeRealRepo({
  project: {
    id: 'idna-3.10',
    url: 'https://files.pythonhosted.org/packages/f1/70/7703c29685631f5a7590aa73f1f1d3fa9a380e654b86af429e0934a32f7d/idna-3.10.tar.gz',
    digest: 'sha256-12f65c9b470abda6dc35cf8e63cc574b1c52b11df2c86030af0ac09b01b13ea9',
  },
  config: { test: 'python3 -m unittest' },
  file: 'idna/core.py',
  correct: [
    { search: '    return "U+{:04X}".format(s)', replace: '    return f"U+{s:04X}"' },
    {
      search: '    if len(label) > 63:\n        return False\n    return True',
      replace: '    return len(label) <= 63',
    },
    {
      search: '    # Bidi rules should only be applied if string contains RTL characters',
      replace: '    # Bidi rules apply only when the string contains RTL characters',
    },
  ],
  bug: {
    search: '    if len(label) > 63:',
    replace: '    if len(label) > 62:',
    newFailure: 'tests.test_idna.IDNATests.test_encode',
  },
  failingBefore: [],
  gates: ['ruff', 'tests'],
});
