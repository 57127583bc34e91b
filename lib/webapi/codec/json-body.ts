// Request bodies as JSON, with LONG values exact: JSON.parse reads every number as a double, so
// 9223372036854775807 would arrive as 9223372036854775808. Integer literals of 16 digits or more
// (outside strings) are therefore turned into strings before parsing: every place the web API
// reads a number for a LONG, a key or a count also reads its decimal text, with the same result
// (spec/surface.md §1.4: the row parser itself works on the text of numbers). Bodies without
// such a literal, the usual case, go to JSON.parse as they are: the check looks for 16 digits
// right where a JSON value may start (after '[', ',' or ':'), so the long fractions of doubles
// never send a body down the slower path.

import { badRequest } from '../errors/webapi-error.ts';

const LONG_LITERAL_MAYBE = /[[,:]\s*-?\d{16}/;

export function parseJsonBody(text: string): unknown {
  const source = LONG_LITERAL_MAYBE.test(text) ? quoteLongIntegers(text) : text;
  try {
    return JSON.parse(source);
  } catch (error) {
    const detail = error instanceof Error ? error.message : String(error);
    throw badRequest(`JSON parse error: ${detail}`);
  }
}

/** The text with every integer literal of 16 digits or more, outside strings, in quotes. */
export function quoteLongIntegers(text: string): string {
  const parts: string[] = [];
  let copiedTo = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      i = stringEnd(text, i);
      continue;
    }
    if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      i = numberEnd(text, i + 1);
      const literal = text.slice(start, i);
      if (/^-?\d{16,}$/.test(literal)) {
        parts.push(text.slice(copiedTo, start), '"', literal, '"');
        copiedTo = i;
      }
      continue;
    }
    i++;
  }
  parts.push(text.slice(copiedTo));
  return parts.join('');
}

/** Index after the string starting at `start` (a quote); the text's end if it is unterminated. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 0x5c) i += 2;
    else if (c === 0x22) return i + 1;
    else i++;
  }
  return text.length;
}

/** Index after the number continuing at `from`: digits, '.', 'e', 'E', '+', '-'. */
function numberEnd(text: string, from: number): number {
  let i = from;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const digit = c >= 0x30 && c <= 0x39;
    if (!digit && c !== 0x2e && c !== 0x65 && c !== 0x45 && c !== 0x2b && c !== 0x2d) break;
  }
  return i;
}
