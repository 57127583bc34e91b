// Java properties text (the format of GridDB's griddb_webapi.properties), parsed by hand: it is
// small and fixed. Lines are `key=value`, `key:value` or `key value`; `#` and `!` start comments;
// a line ending in an odd number of backslashes continues on the next one (its leading blanks
// dropped); `\t \n \r \f \uXXXX` are escapes and any other `\x` stands for x. Later keys replace
// earlier ones, as java.util.Properties does.

/** Key → value, in file order; a key given twice keeps its last value. */
export function parseProperties(text: string): Map<string, string> {
  const properties = new Map<string, string>();
  for (const logical of logicalLines(text)) {
    const split = separatorIndex(logical);
    const key = unescape(logical.slice(0, split.keyEnd));
    const value = unescape(logical.slice(split.valueStart));
    properties.set(key, value);
  }
  return properties;
}

/** Lines with continuations joined, without comments and blank lines, leading blanks removed. */
function logicalLines(text: string): string[] {
  const lines: string[] = [];
  let pending: string | undefined;
  for (const raw of text.split(/\r\n|\r|\n/)) {
    const line = raw.replace(/^[ \t\f]+/, '');
    if (pending === undefined && (line === '' || line.startsWith('#') || line.startsWith('!'))) {
      continue;
    }
    const joined = (pending ?? '') + line;
    if (trailingBackslashCount(joined) % 2 === 1) {
      pending = joined.slice(0, -1);
      continue;
    }
    pending = undefined;
    lines.push(joined);
  }
  if (pending !== undefined) lines.push(pending);
  return lines;
}

function trailingBackslashCount(line: string): number {
  let count = 0;
  while (count < line.length && line[line.length - 1 - count] === '\\') count++;
  return count;
}

/** Where the key ends and the value starts: the first unescaped `=`, `:` or blank. */
function separatorIndex(line: string): { keyEnd: number; valueStart: number } {
  let i = 0;
  while (i < line.length) {
    const c = line[i]!;
    if (c === '\\') {
      i += 2;
      continue;
    }
    if (c === '=' || c === ':' || c === ' ' || c === '\t' || c === '\f') break;
    i++;
  }
  const keyEnd = Math.min(i, line.length);
  let j = keyEnd;
  while (j < line.length && /[ \t\f]/.test(line[j]!)) j++;
  if (j < line.length && (line[j] === '=' || line[j] === ':')) j++;
  while (j < line.length && /[ \t\f]/.test(line[j]!)) j++;
  return { keyEnd, valueStart: j };
}

const ESCAPES: Record<string, string> = { t: '\t', n: '\n', r: '\r', f: '\f' };

function unescape(text: string): string {
  if (!text.includes('\\')) return text;
  return text.replace(/\\(u[0-9a-fA-F]{4}|[\s\S]?)/g, (_, escaped: string) => {
    if (escaped.length === 5) return String.fromCharCode(Number.parseInt(escaped.slice(1), 16));
    return ESCAPES[escaped] ?? escaped;
  });
}
