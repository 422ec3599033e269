import { describeRealRepo } from './sessions.js';

// Tests inside the package (toolz/tests/), no pytest configuration; the change breaks two tests in two files. Set up as
// its contributors do: a `.venv` with toolz installed editable and pytest, ignored by `.venv` (the repository's
// .gitignore, which the sdist leaves out, with that line).
describeRealRepo({
  project: {
    id: 'toolz-0.12.1',
    url: 'https://files.pythonhosted.org/packages/3e/bf/5e12db234df984f6df3c7f12f1428aa680ba4e101f63f4b8b3f9e8d2e617/toolz-0.12.1.tar.gz',
    digest: 'sha256-ecca342664893f177a13dac0e6b41cbd8ac25a358e5f215316d43e2100224f4d',
    python: { editable: true, install: ['pytest==9.2.0'] },
    extraFiles: { '.gitignore': '*.pyc\nbuild/\ndist/\n*.egg-info/\nbench/shakespeare.txt\n.coverage\n\n\\.tox/\n.venv\n' },
  },
  file: 'toolz/itertoolz.py',
  correct: [
    { search: '        d[item] += 1\n', replace: '        d[item] = d[item] + 1\n' },
    {
      search: '    if isinstance(seq, (tuple, list, Sequence)):\n        return seq[n]',
      replace: '    if isinstance(seq, Sequence):\n        return seq[n]',
    },
    { search: '    """ The second element in a sequence', replace: '    """ The second element of a sequence' },
  ],
  bug: {
    search: '        d[item] += 1\n',
    replace: '        d[item] += 2\n',
    newFailure: 'toolz/tests/test_itertoolz.py::test_frequencies',
  },
  failingBefore: [],
  gates: ['ruff', 'tests'],
  lint: { linter: 'ruff', preExisting: true },
});
