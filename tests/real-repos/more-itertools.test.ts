import { describeRealRepo } from './sessions.js';

// A package with its tests in tests/, unittest classes run by pytest; more.py is 4,800 lines with 19 ruff findings.
describeRealRepo({
  project: {
    id: 'more-itertools-10.5.0',
    url: 'https://files.pythonhosted.org/packages/51/78/65922308c4248e0eb08ebcbe67c95d48615cc6f27854b6f2e57143e9178f/more-itertools-10.5.0.tar.gz',
    digest: 'sha256-5482bfef7849c25dc3c6dd53a6173ae4795da2a41a80faea6700d9f5846c5da6',
  },
  file: 'more_itertools/more.py',
  correct: [
    {
      search: '    for item in iterable:\n        return item\n',
      replace: '    for item in iter(iterable):\n        return item\n',
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
