#!/usr/bin/env node
// The type check and ESLint in one process over one TypeScript program. ESLint's typed rules need a program of the
// whole project, and building one is most of what `tsc --noEmit` does: run apart, the two built it twice (about 30
// CPU-seconds each on this project). Here the program is built and checked once, as `tsc --noEmit` would, and ESLint
// is handed it (typescript-eslint's `programs` in place of the config's `projectService`) with the config otherwise
// as `eslint .` reads it. Exit code 1 if either found an error.
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';

const configFile = path.resolve('tsconfig.json');
const { config, error } = ts.readConfigFile(configFile, ts.sys.readFile);
if (error) fail([error]);
const parsed = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configFile), undefined, configFile);
const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options, projectReferences: parsed.projectReferences });
const typeErrors = [...parsed.errors, ...ts.getPreEmitDiagnostics(program)];
if (typeErrors.length > 0) process.stdout.write(formatted(typeErrors));

const eslint = new ESLint({
  overrideConfig: { files: ['**/*.ts'], languageOptions: { parserOptions: { projectService: false, programs: [program] } } },
});
const results = await eslint.lintFiles(['.']);
const report = await (await eslint.loadFormatter('stylish')).format(results);
if (report) process.stdout.write(report);
const lintErrors = results.reduce((count, result) => count + result.errorCount, 0);

process.stdout.write(`type check: ${typeErrors.length} errors; ESLint: ${lintErrors} errors in ${results.length} files\n`);
process.exitCode = typeErrors.length > 0 || lintErrors > 0 ? 1 : 0;

function formatted(diagnostics) {
  return ts.formatDiagnostics(diagnostics, {
    getCanonicalFileName: (name) => name,
    getCurrentDirectory: ts.sys.getCurrentDirectory,
    getNewLine: () => ts.sys.newLine,
  });
}

function fail(diagnostics) {
  process.stdout.write(formatted(diagnostics));
  process.exit(1);
}
