// Assertions for programmer errors. They stay on in production: a broken invariant in a database
// must stop the process before it writes a wrong byte, not be logged and carried forward.

export class AssertionError extends Error {
  override readonly name = 'AssertionError';
}

export function assert(condition: unknown, message?: string): asserts condition {
  if (!condition) throw new AssertionError(message ?? 'assertion failed');
}

/** Marks a switch as exhaustive: reaching it is a bug. */
export function unreachable(value: never, message = 'unreachable'): never {
  throw new AssertionError(`${message}: ${String(value)}`);
}
