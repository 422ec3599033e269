// The parts of node:test and node:assert these tests use: the project has no @types/node, and needs no network.
declare module 'node:test' {
  export default function test(name: string, body: () => void | Promise<void>): void;
}

declare module 'node:assert/strict' {
  interface Assert {
    equal(actual: unknown, expected: unknown, message?: string): void;
    deepEqual(actual: unknown, expected: unknown, message?: string): void;
    throws(body: () => unknown, expected?: RegExp | { message?: RegExp | string }): void;
  }
  const assert: Assert;
  export default assert;
}
