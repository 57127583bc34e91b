// Short, safe descriptions of names and user values for error messages. A container name may be
// 128K characters and a bad value may be a megabyte string: messages quote at most a few dozen
// characters, so an error never carries (or logs) the user's payload.

const QUOTED_LENGTH_MAX = 64;

/** `"abc"`, JSON-escaped, cut at 64 characters with an ellipsis. */
export function quote(text: string): string {
  const cut = text.length > QUOTED_LENGTH_MAX ? `${text.slice(0, QUOTED_LENGTH_MAX)}…` : text;
  return JSON.stringify(cut);
}

/** `string "abc"`, `number 1.5`, `bigint 5n`, `array of 3`, `Uint8Array of 10 bytes`, ... */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  switch (typeof value) {
    case 'string':
      return `string ${quote(value)}`;
    case 'number':
      return `number ${Object.is(value, -0) ? '-0' : String(value)}`;
    case 'bigint':
      return `bigint ${quote(`${value}n`).slice(1, -1)}`;
    case 'boolean':
      return `boolean ${String(value)}`;
    case 'undefined':
      return 'undefined';
    case 'object':
      try {
        return describeObject(value);
      } catch {
        return 'object'; // a Proxy or a forged typed array: describing it must not throw
      }
    default:
      return typeof value;
  }
}

function describeObject(value: object): string {
  if (Array.isArray(value)) return `array of ${value.length}`;
  if (value instanceof Uint8Array) return `${value.constructor.name} of ${value.length} bytes`;
  if (value instanceof Date) {
    return Number.isNaN(value.getTime()) ? 'invalid Date' : `Date ${value.toISOString()}`;
  }
  const name = Object.getPrototypeOf(value) === null ? 'Object' : value.constructor?.name;
  return `object ${typeof name === 'string' && name.length > 0 ? name : 'Object'}`;
}
