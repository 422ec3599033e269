import { describeRealRepo } from './sessions.js';

// A TypeScript library with vitest, published with its sources and tests but without the repository's vitest config
// (added here, as the repository has it, so that the tests import the sources) and with a `test` script that needs
// pnpm; its user names the test command in codeloop.json. The `build` script's tool is not installed either.
describeRealRepo({
  project: {
    id: 'zod-4.1.12',
    url: 'https://registry.npmjs.org/zod/-/zod-4.1.12.tgz',
    digest: 'sha512-JInaHOamG8pt5+Ey8kGmdcAcg3OL9reK8ltczgHTAwNhMys/6ThXHityHxVV2p3fkw/c+MAvBHFVYHFZDmjMCQ==',
    npmInstall: ['vitest@3.2.4'],
    extraFiles: {
      'vitest.config.ts': [
        "import { fileURLToPath } from 'node:url';",
        "import { defineConfig } from 'vitest/config';",
        '',
        "export default defineConfig({ resolve: { alias: { 'zod/v3': fileURLToPath(new URL('./src/v3/index.ts', import.meta.url)) } } });",
        '',
      ].join('\n'),
    },
  },
  config: { test: 'node_modules/.bin/vitest run src/v3/tests' },
  file: 'src/v3/types.ts',
  correct: [
    {
      search: '  nonempty(message?: errorUtil.ErrMessage) {\n    return this.min(1, errorUtil.errToObj(message));',
      replace: '  nonempty(message?: errorUtil.ErrMessage) {\n    return this.min(1, message);',
    },
    {
      search: '    return !!this._def.checks.find((ch) => ch.kind === "datetime");',
      replace: '    return this._def.checks.some((ch) => ch.kind === "datetime");',
    },
    {
      search: '    return !!this._def.checks.find((ch) => ch.kind === "email");',
      replace: '    return this._def.checks.some((ch) => ch.kind === "email");',
    },
  ],
  bug: {
    search: '  nonempty(message?: errorUtil.ErrMessage) {\n    return this.min(1, errorUtil.errToObj(message));',
    replace: '  nonempty(message?: errorUtil.ErrMessage) {\n    return this.min(2, errorUtil.errToObj(message));',
    newFailure: 'src/v3/tests/string.test.ts > passing validations',
  },
  failingBefore: [],
  gates: ['build', 'tests'],
  // Its suite takes 15 s a run here when the machine is idle, and a session runs it up to four times.
  timeoutMs: 600_000,
});
