import { describeRealRepo } from './sessions.js';

// A unittest suite (tests/ is a package of unittest.TestCase classes, 6,256 tests), run as its own CI runs it, with
// `python -m unittest`. Set up as its contributors do: a `.venv` with idna installed editable and no pytest, so the
// command codeloop finds is the venv's `python -m unittest`; the repository's .gitignore (left out of the sdist) with
// `/.venv` added. The wrong edit breaks the label length check.
describeRealRepo({
  project: {
    id: 'idna-3.10',
    url: 'https://files.pythonhosted.org/packages/f1/70/7703c29685631f5a7590aa73f1f1d3fa9a380e654b86af429e0934a32f7d/idna-3.10.tar.gz',
    digest: 'sha256-12f65c9b470abda6dc35cf8e63cc574b1c52b11df2c86030af0ac09b01b13ea9',
    python: { editable: true, install: [] },
    extraFiles: {
      '.gitignore': [
        '*.py[cod]\n*.so\n*.egg\n*.egg-info\ndist\nbuild\neggs\nparts\nbin\nvar\nsdist\ndevelop-eggs\n.installed.cfg\nlib\nlib64\n',
        '.idea\n*.swp\n\n.hypothesis/\n.coverage\nhtmlcov/\n/.venv\n',
      ].join(''),
    },
  },
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
