import { describeRealRepo } from './sessions.js';

// A package with its tests in tests/, unittest classes run by pytest; more.py is 4,800 lines with 19 ruff findings. Set
// up as its contributors do: a `.venv` with the package installed editable and pytest, which the repository's own
// .gitignore (left out of the sdist) ignores as `.venv/`.
describeRealRepo({
  project: {
    id: 'more-itertools-10.5.0',
    url: 'https://files.pythonhosted.org/packages/51/78/65922308c4248e0eb08ebcbe67c95d48615cc6f27854b6f2e57143e9178f/more-itertools-10.5.0.tar.gz',
    digest: 'sha256-5482bfef7849c25dc3c6dd53a6173ae4795da2a41a80faea6700d9f5846c5da6',
    python: { editable: true, install: ['pytest==9.2.0'] },
    extraFiles: {
      '.gitignore': [
        '*.py[co]\n\n# Packages\n*.egg\n*.eggs\n*.egg-info\ndist\nbuild\neggs\nparts\nbin\nvar\nsdist\ndevelop-eggs\n.installed.cfg\n',
        '\n# Installer logs\npip-log.txt\n\n# Unit test / coverage reports\n.coverage\n.tox\n.noseids\nhtmlcov/\ncoverage.xml\n.pytest_cache\n',
        '\n# Docs by Sphinx\n_build\n\n# Environment\n.env/\n.venv/\nenv/\nvenv/\n\n# IDE files\n.idea\n.vscode\n.DS_Store\n',
        '\n# Mypy\n.mypy_cache\n.dmypy.json\n\n# Ruff\n.ruff_cache/\n',
      ].join(''),
    },
  },
  file: 'more_itertools/more.py',
  correct: [
    {
      search: '    for item in iterable:\n        return item\n',
      replace: '    for item in iter(iterable):\n        return item\n',
    },
    { search: '        yield from self._cache.keys()', replace: '        yield from self._cache' },
    {
      search: '        step = 1 if (index.step is None) else index.step',
      replace: '        step = 1 if index.step is None else index.step',
    },
  ],
  bug: {
    search: "            'default value was provided.'\n        )\n    return default",
    replace: "            'default value was provided.'\n        )\n    return None",
    newFailure: 'tests/test_more.py::FirstTests::test_default',
  },
  failingBefore: [],
  gates: ['ruff', 'tests'],
  lint: { linter: 'ruff', preExisting: true },
});
