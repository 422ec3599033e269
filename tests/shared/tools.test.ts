import { expect, test } from 'vitest';
import { toolDefinitions, toolInputSchemas } from '../../src/shared/tools.js';

test('the model sees exactly the seed tools, delete_file, move_file and find_symbol, each with an object input schema', () => {
  const definitions = toolDefinitions();
  expect(definitions.map((tool) => tool.name)).toEqual([
    'read_file',
    'edit_file',
    'create_file',
    'delete_file',
    'move_file',
    'search_codebase',
    'find_symbol',
    'list_files',
    'run_command',
    'run_tests',
    'raise_blocker',
  ]);
  for (const tool of definitions) {
    expect(tool.input_schema.type).toBe('object');
    expect(tool.input_schema).not.toHaveProperty('$schema');
    expect(tool.description.length).toBeGreaterThan(20);
  }
});

test('required fields and defaults follow the seed design', () => {
  const byName = Object.fromEntries(toolDefinitions().map((tool) => [tool.name, tool.input_schema]));
  expect(byName.edit_file.required).toEqual(['path', 'edits']);
  expect(byName.read_file.required).toEqual(['path']);
  expect(byName.search_codebase.required).toEqual(['pattern']);
  expect(byName.list_files.required ?? []).toEqual([]);
  expect(byName.find_symbol.required).toEqual(['name']);
  expect(toolInputSchemas.search_codebase.parse({ pattern: 'x' }).max_results).toBe(20);
  expect(toolInputSchemas.list_files.parse({}).max_depth).toBe(3);
  expect(toolInputSchemas.run_command.parse({ command: 'ls' }).timeout).toBe(60);
});

test('bad model input is rejected by the same schemas', () => {
  expect(toolInputSchemas.run_command.safeParse({ command: 'ls', timeout: 301 }).success).toBe(false);
  expect(toolInputSchemas.edit_file.safeParse({ path: 'a', edits: [] }).success).toBe(false);
  expect(toolInputSchemas.edit_file.safeParse({ path: 'a', edits: [{ search: '', replace: 'x' }] }).success).toBe(false);
  expect(toolInputSchemas.read_file.safeParse({ path: 'a', start_line: 0 }).success).toBe(false);
});
