import { existsSync } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { WorkspaceConfigSchema, type WorkspaceConfig } from '../../shared/gates.js';
import { describeIssues } from '../../shared/validation.js';
import { readManifest } from '../tech-stack.js';

const CONFIG_FILES = ['codeloop.json', 'codeloop.yaml', 'codeloop.yml'];

/** The workspace's own codeloop config, or the defaults. A config that does not parse is an error naming the file. */
export function readWorkspaceConfig(workspace: string): WorkspaceConfig {
  const file = CONFIG_FILES.find((name) => existsSync(path.join(workspace, name)));
  if (!file) return WorkspaceConfigSchema.parse({});
  const text = readManifest(path.join(workspace, file));
  if (typeof text !== 'string') throw new Error(`${file} cannot be read: ${text?.problem ?? 'it is gone'}`);
  let raw: unknown;
  try {
    raw = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (error) {
    throw new Error(`${file} does not parse: ${(error as Error).message}`, { cause: error });
  }
  const parsed = WorkspaceConfigSchema.safeParse(raw ?? {});
  if (!parsed.success) throw new Error(`${file} is invalid: ${describeIssues(parsed.error)}`);
  return parsed.data;
}
