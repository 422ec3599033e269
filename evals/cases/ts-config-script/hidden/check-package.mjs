// Hidden from the agent: package.json gained a typecheck script and nothing else changed, key for key and line for line.
import { readFileSync } from 'node:fs';

const original = readFileSync(new URL('./package.orig.json', import.meta.url), 'utf8');
const now = readFileSync(new URL('./package.json', import.meta.url), 'utf8');
const before = JSON.parse(original);
const after = JSON.parse(now);
const fail = (message) => {
  console.error(message);
  process.exit(1);
};

const script = after.scripts?.typecheck ?? fail('package.json has no "typecheck" script');
if (!/tsc\b/.test(script) || !script.includes('--noEmit')) fail(`the typecheck script does not run tsc --noEmit: ${script}`);
const { typecheck: _added, ...scripts } = after.scripts;
if (JSON.stringify({ ...after, scripts }) !== JSON.stringify(before)) fail('package.json changed beyond the new script');
const added = now.split('\n').filter((line) => !original.split('\n').includes(line));
const removed = original.split('\n').filter((line) => !now.split('\n').includes(line));
// Adding one entry to "scripts" changes at most the line before it (a comma) and adds the entry itself.
if (added.length > 2 || removed.length > 1) fail(`not a targeted edit: ${removed.length} line(s) removed, ${added.length} added`);
console.log('package.json: the typecheck script was added and nothing else changed');
