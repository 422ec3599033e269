import { describeRealRepo } from './sessions.js';

// One module and one test file at the top level; 44 ruff findings in six.py as published; test_move_items[dbm_ndbm]
// fails on a Python built without dbm.ndbm, as this one is. Set up as its contributors do: a `.venv` with six installed
// editable and pytest, ignored by `.venv*` (the repository's .gitignore, which the sdist leaves out, with that line).
describeRealRepo({
  project: {
    id: 'six-1.16.0',
    url: 'https://files.pythonhosted.org/packages/71/39/171f1c67cd00715f190ba0b100d606d440a28c93c7714febeca8b79af85e/six-1.16.0.tar.gz',
    digest: 'sha256-1e61c37477a1626458e36f7b1d82aa5c9b094fa4802892072e49de9c60c4c926',
    python: { editable: true, install: ['pytest==9.2.0'] },
    extraFiles: { '.gitignore': '*.pyc\ndist\nMANIFEST\ndocumentation/_build\n.tox\nsix.egg-info\n.venv*\n' },
  },
  file: 'six.py',
  correct: [
    { search: '        return s.encode("latin-1")', replace: '        return bytes(s, "latin-1")' },
    { search: '    """Add documentation to a function."""', replace: '    """Set the docstring of a function."""' },
    {
      search: '_add_doc(iteritems,\n         "Return an iterator over the (key, value) pairs of a dictionary.")',
      replace: '_add_doc(iteritems, "Return an iterator over the (key, value) pairs of a dictionary.")',
    },
  ],
  bug: { search: '        return s.encode("latin-1")', replace: '        return s.encode("utf-8")', newFailure: 'test_six.py::test_b' },
  failingBefore: ['test_six.py::test_move_items[dbm_ndbm]'],
  gates: ['ruff', 'tests'],
  lint: { linter: 'ruff', preExisting: true },
});
