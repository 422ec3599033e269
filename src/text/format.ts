/**
 * A count with thousands separators, the same in the CLI and the Web UI details: 12,345. Integers are grouped by
 * hand: `toLocaleString` builds a number formatter on every call, and a task's details render four counts on each
 * step of its workflow. Anything else is left to it.
 */
export const formatCount = (value: number): string =>
  Number.isSafeInteger(value) ? String(value).replace(/\B(?=(\d{3})+$)/g, ',') : value.toLocaleString('en-US');
