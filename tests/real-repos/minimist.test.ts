import { describeRealRepo } from './sessions.js';

// An npm package tested with tape under nyc, with its devDependencies installed. eslint finds 52 warnings in index.js
// as published and no errors, so lint-on-edit has nothing to report; `pretest` lints, and `posttest` audits over the
// network (which a task's commands do not have), so its user skips npm's hooks in codeloop.json.
describeRealRepo({
  project: {
    id: 'minimist-1.2.8',
    url: 'https://registry.npmjs.org/minimist/-/minimist-1.2.8.tgz',
    digest: 'sha512-2yyAR8qBkN3YuheJanUpWC5U3bb5osDywNB8RzDVlDwDHbocAJveqqj1u8+SVD7jkWT4yvsHCpWqqWqAxb0zCA==',
    npmInstall: [],
    // The repository's .gitignore, which the published tarball leaves out: nyc's output stays out of a task's commits.
    extraFiles: { '.gitignore': 'node_modules\n\npackage-lock.json\nnpm-shrinkwrap.json\n\n.nyc_output/\ncoverage/\n' },
  },
  config: { test: { hooks: false } },
  file: 'index.js',
  correct: [
    { search: '\tif ((/^0x[0-9a-f]+$/i).test(x)) { return true; }', replace: '\tif ((/^0x[\\da-f]+$/i).test(x)) { return true; }' },
    { search: '\tvar key = keys[keys.length - 1];\n\treturn key in o;', replace: '\treturn keys[keys.length - 1] in o;' },
    {
      search: "\treturn (key === 'constructor' && typeof obj[key] === 'function') || key === '__proto__';",
      replace: "\treturn key === '__proto__' || (key === 'constructor' && typeof obj[key] === 'function');",
    },
  ],
  bug: {
    search: '\tif ((/^0x[0-9a-f]+$/i).test(x)) { return true; }',
    replace: '\tif ((/^0x[0-9a-f]+$/i).test(x)) { return false; }',
    newFailure: 'nums > should be deeply equivalent',
  },
  failingBefore: [],
  gates: ['lint', 'tests'],
  lint: { linter: 'eslint', preExisting: false },
});
