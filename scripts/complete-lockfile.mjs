#!/usr/bin/env node
/**
 * Adds the optional platform packages the registry did not resolve (e.g. @swc/core-darwin-arm64 when the mirror
 * holds only Linux builds) to package-lock.json as optional entries. Without them `npm ci` refuses the lock as out
 * of sync; with them it installs what this platform needs and skips the rest. Run after `npm install`:
 *   npm install && node scripts/complete-lockfile.mjs
 */
import { readFileSync, writeFileSync } from 'node:fs';

const file = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(file, 'utf8'));
const packages = lock.packages;
const added = [];
for (const [location, meta] of Object.entries(packages)) {
  for (const [name, version] of Object.entries(meta.optionalDependencies ?? {})) {
    const hoisted = `node_modules/${name}`;
    const nested = location ? `${location}/node_modules/${name}` : hoisted;
    if (packages[hoisted] || packages[nested]) continue;
    packages[hoisted] = { version, ...(meta.dev ? { dev: true } : {}), optional: true };
    added.push(`${name}@${version}`);
  }
}
lock.packages = Object.fromEntries(Object.entries(packages).sort(([a], [b]) => (a === '' ? -1 : b === '' ? 1 : a.localeCompare(b))));
writeFileSync(file, `${JSON.stringify(lock, null, 2)}\n`);
console.log(added.length ? `added ${added.length} optional entries: ${added.join(', ')}` : 'package-lock.json already complete');
