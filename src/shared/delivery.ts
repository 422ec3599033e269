/** A public name in a changed file, as a language-aware pass read it from the code. */
export interface PublicName {
  file: string;
  name: string;
  /** `function`, `class`, `method`, `const`, `interface`, `type`, `command` (a CLI command the code registers). */
  kind: string;
  /** How it is called, e.g. `add_bookmark(url, title)` or `greet(name: string): string`. */
  signature: string;
  /** Against the integration branch before the task merged: new, a different signature, or as it was. */
  change: 'added' | 'changed' | 'unchanged';
}

/** What one completed batch task brought into the integration branch, read from the merge, not from the model. */
export interface Delivery {
  taskId: string;
  /** The files the merge changed, with its diffstat. */
  files: { path: string; added: number; removed: number }[];
  /** Public names in the changed files that are new or changed, and those a `provides` names. */
  names: PublicName[];
  /** Changed source files no pass could read (a syntax error, a language without one), named so nothing is silent. */
  unread?: string[];
}

/** A `provides` entry the code does not hold as declared, with what is there under that name, if anything. */
export interface InterfaceMismatch {
  declared: string;
  found?: string;
}

/** `name(a, b)` → `{ name, params: ['a', 'b'] }`; `Name` alone (a class, a constant) has no parameter list. */
export function parseSignature(signature: string): { name: string; params?: string[] } {
  const match = /^\s*(?:def\s+|function\s+)?([A-Za-z_$][\w$.]*)\s*(?:\(([^)]*)\))?/.exec(signature);
  if (!match) return { name: signature.trim() };
  const params = match[2]
    ?.split(',')
    .map(
      (param) =>
        param
          .trim()
          .replace(/^\*+|^\.\.\./, '')
          .split(/[:=?\s]/)[0],
    )
    .filter((param) => param.length > 0 && param !== 'self');
  return { name: match[1], ...(match[2] === undefined ? {} : { params }) };
}

/**
 * The `provides` entries the delivered code does not hold as declared: the name is missing, or its parameters (by
 * name, in order) differ. Names match by their last part, so `Bookmarks.add` matches a declared `add`.
 */
export function interfaceMismatches(provides: readonly string[], names: readonly PublicName[]): InterfaceMismatch[] {
  const mismatches: InterfaceMismatch[] = [];
  for (const declared of provides) {
    const want = parseSignature(declared);
    const candidates = names.filter((name) => lastPart(name.name) === lastPart(want.name));
    const matches = candidates.some((candidate) => {
      const have = parseSignature(candidate.signature);
      return want.params === undefined || sameList(want.params, have.params ?? []);
    });
    if (!matches) mismatches.push({ declared, ...(candidates.length ? { found: candidates.map((c) => c.signature).join(', ') } : {}) });
  }
  return mismatches;
}

const lastPart = (name: string) => name.split('.').at(-1)!;
const sameList = (a: string[], b: string[]) => a.length === b.length && a.every((item, index) => item === b[index]);
