/** A count with thousands separators, the same in the CLI and the Web UI details: 12,345. */
export const formatCount = (value: number): string => value.toLocaleString('en-US');
