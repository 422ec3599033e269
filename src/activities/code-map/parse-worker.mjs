/**
 * The thread the code map parses source files on, started by parse-thread.ts: tree-sitter (its WebAssembly build)
 * runs here, never on the worker's event loop, so a large repository's parse costs the worker no heartbeat. Plain
 * JavaScript, so it loads the same under tsx, vitest and node.
 *
 * workerData: { grammarDir: string, languages: { name, grammar, definitions, references }[] } (see languages.ts)
 * each message in: { files: { file: string, language: string, text: string }[] }
 * each reply: { parsed: { file, definitions: [name, kind, line][], references: string[] }[] }, `references` holding
 * each identifier the file uses once; or { error: string } when the thread could not start.
 */
import path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Language, Parser, Query } from 'web-tree-sitter';

const DEFINITION = 'definition.';

const ready = (async () => {
  await Parser.init();
  const languages = new Map();
  for (const spec of workerData.languages) {
    const language = await Language.load(path.join(workerData.grammarDir, spec.grammar));
    languages.set(spec.name, {
      language,
      definitions: new Query(language, spec.definitions),
      references: new Query(language, spec.references),
    });
  }
  return { parser: new Parser(), languages };
})();

parentPort.on('message', ({ files }) => {
  ready.then(
    ({ parser, languages }) => parentPort.postMessage({ parsed: files.map((file) => parse(parser, languages.get(file.language), file)) }),
    (error) => parentPort.postMessage({ error: `the code map's parser could not start: ${error.message}` }),
  );
});

function parse(parser, language, { file, text }) {
  parser.setLanguage(language.language);
  const tree = parser.parse(text);
  if (!tree) return { file, definitions: [], references: [] };
  try {
    const definitions = [];
    for (const match of language.definitions.matches(tree.rootNode)) {
      const name = match.captures.find((capture) => capture.name === 'name');
      const definition = match.captures.find((capture) => capture.name.startsWith(DEFINITION));
      if (name && definition) definitions.push([name.node.text, definition.name.slice(DEFINITION.length), name.node.startPosition.row + 1]);
    }
    const references = new Set();
    for (const capture of language.references.captures(tree.rootNode)) references.add(capture.node.text);
    return { file, definitions, references: [...references] };
  } finally {
    tree.delete();
  }
}
