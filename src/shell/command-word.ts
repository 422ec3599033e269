import type { Word, WordPart } from 'unbash';

/** Parts whose text is only known when the shell runs: what a classifier reading the source cannot see. */
const EXPANDING_PARTS = new Set<WordPart['type']>([
  'SimpleExpansion',
  'ParameterExpansion',
  'CommandExpansion',
  'ArithmeticExpansion',
  'ProcessSubstitution',
  'Glob',
  'ExtendedGlob',
  'BraceExpansion',
]);

/** Whether a word's value comes, in whole or in part, from an expansion: `$(echo rm)`, `$CMD`, `r?`, `{r,m}`. */
export function isExpanding(word: Word): boolean {
  const walk = (parts: readonly WordPart[] | undefined): boolean =>
    (parts ?? []).some(
      (part) => EXPANDING_PARTS.has(part.type) || ('parts' in part && walk(part.parts as readonly WordPart[] | undefined)),
    );
  return walk(word.parts);
}

/** A command word as the program it names: `/usr/bin/rm` and `./rm` are `rm`. */
export function programName(value: string): string {
  return value.slice(value.lastIndexOf('/') + 1);
}

/** An option word: `-c`, `--force`, `+x`; not `-` alone, which names standard input. */
export function isOption(value: string): boolean {
  return value.length > 1 && (value.startsWith('-') || value.startsWith('+'));
}
