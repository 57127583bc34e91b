// Name rules for containers, columns, indexes and data affinities (spec/surface.md §4.6).
//
// Characters: ASCII letters and digits, `_`, `-`, `.`, `/`, `=`. The spec says "alphanumerics"; we
// read that as ASCII only, as GridDB's quick-start guide says for cluster names and as TQL/SQL
// identifiers require. Unicode letters are refused: names are hashed to partitions after
// lower-casing (partition-hash.ts), and only ASCII lower-casing is the same in every client.
//
//   container  [A-Za-z_\-./=][A-Za-z0-9_\-./=]* optionally `@affinity` (node affinity: same
//              characters, may be all digits); must not start with a digit; at most
//              limits.containerNameLengthMax characters, the affinity part included
//   column     [A-Za-z0-9_\-./=]+, at most COLUMN_NAME_LENGTH_MAX (256); the spec sets no rule
//              on the first character, so a leading digit is allowed (TQL/SQL must quote it)
//   index      as a column, at most limits.containerNameLengthMax characters
//   affinity   [A-Za-z0-9_\-./=]+, at most DATA_AFFINITY_LENGTH_MAX (8), or exactly `#unique`
//
// Identity is case-insensitive and spelling is preserved: compare normalizeName(a) with
// normalizeName(b).

import { StorageError } from '../base/errors.ts';
import {
  COLUMN_NAME_LENGTH_MAX, DATA_AFFINITY_LENGTH_MAX, type BlockSizeLimits,
} from '../base/limits.ts';
import { containerBaseName, isQualifiedContainerKey } from './database-names.ts';
import { describeValue, quote } from './describe-value.ts';

/** The data affinity that gives a container blocks of its own. */
export const DATA_AFFINITY_UNIQUE = '#unique';

const NAME_CHARACTERS_ALLOWED = 'ASCII letters, digits, _ - . / =';
const NON_ASCII = /[^\x00-\x7f]/;
const ASCII_UPPER_CASE = /[A-Z]/g;

/**
 * Lower-case key for case-insensitive identity; the spelling is kept elsewhere. Only ASCII letters
 * are folded: String.toLowerCase would also fold some other letters into ASCII ones (the Kelvin
 * sign U+212A becomes "k"), and a lookup by such a name must not find container "key".
 */
export function normalizeName(name: string): string {
  if (!NON_ASCII.test(name)) return name.toLowerCase();
  return name.replace(ASCII_UPPER_CASE, (letter) => letter.toLowerCase());
}

/**
 * Returns the name, or throws INVALID_NAME. A container key of another database than public
 * (database-names.ts) is checked as its name, and returned whole.
 */
export function validateContainerName(name: unknown, limits: BlockSizeLimits): string {
  const what = 'container name';
  const key = nameString(name, what);
  if (isQualifiedContainerKey(key)) validateContainerBaseName(containerBaseName(key), limits);
  else validateContainerBaseName(key, limits);
  return key;
}

function validateContainerBaseName(text: string, limits: BlockSizeLimits): void {
  const what = 'container name';
  nameLengthCheck(text, what, limits.containerNameLengthMax);
  const at = text.indexOf('@');
  const baseName = at < 0 ? text : text.slice(0, at);
  if (baseName.length === 0) nameInvalid(text, what, 'the part before "@" is empty');
  if (isDigit(baseName.charCodeAt(0))) nameInvalid(text, what, 'it starts with a digit');
  nameCharactersCheck(text, baseName, 0, what);
  if (at >= 0) {
    const affinity = text.slice(at + 1);
    if (affinity.length === 0) nameInvalid(text, what, 'the node affinity after "@" is empty');
    nameCharactersCheck(text, affinity, at + 1, what);
  }
}

/** Returns the name, or throws INVALID_NAME. `containerName` only makes the message clearer. */
export function validateColumnName(name: unknown, containerName?: string): string {
  const what = containerName === undefined
    ? 'column name'
    : `column name in ${quote(containerName)}`;
  const text = nameString(name, what);
  nameLengthCheck(text, what, COLUMN_NAME_LENGTH_MAX);
  nameCharactersCheck(text, text, 0, what);
  return text;
}

/** Returns the name, or throws INVALID_NAME. */
export function validateIndexName(
  name: unknown,
  limits: BlockSizeLimits,
  containerName?: string,
): string {
  const what = containerName === undefined ? 'index name' : `index name in ${quote(containerName)}`;
  const text = nameString(name, what);
  nameLengthCheck(text, what, limits.containerNameLengthMax);
  nameCharactersCheck(text, text, 0, what);
  return text;
}

/** Returns the affinity (`#unique` included), or throws INVALID_NAME. */
export function validateDataAffinity(affinity: unknown): string {
  const what = 'data affinity';
  const text = nameString(affinity, what);
  if (text === DATA_AFFINITY_UNIQUE) return text;
  nameLengthCheck(text, what, DATA_AFFINITY_LENGTH_MAX);
  nameCharactersCheck(text, text, 0, what);
  return text;
}

function nameString(name: unknown, what: string): string {
  if (typeof name !== 'string') {
    throw new StorageError('INVALID_NAME', `${what} must be a string, got ${describeValue(name)}`);
  }
  if (name.length === 0) throw new StorageError('INVALID_NAME', `${what} is empty`);
  return name;
}

function nameLengthCheck(text: string, what: string, lengthMax: number): void {
  if (text.length > lengthMax) {
    nameInvalid(text, what, `it has ${text.length} characters, more than ${lengthMax}`);
  }
}

/** Checks `part`, which starts at `offset` in the full name `text`. */
function nameCharactersCheck(text: string, part: string, offset: number, what: string): void {
  for (let i = 0; i < part.length; i++) {
    if (!isNameCharacter(part.charCodeAt(i))) {
      const character = String.fromCodePoint(part.codePointAt(i) ?? 0);
      nameInvalid(text, what, `character ${JSON.stringify(character)} at ${offset + i} is not ` +
        `allowed (allowed: ${NAME_CHARACTERS_ALLOWED})`);
    }
  }
}

function nameInvalid(text: string, what: string, reason: string): never {
  throw new StorageError('INVALID_NAME', `invalid ${what} ${quote(text)}: ${reason}`);
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function isNameCharacter(code: number): boolean {
  return (code >= 0x61 && code <= 0x7a) || // a-z
    (code >= 0x41 && code <= 0x5a) || // A-Z
    isDigit(code) ||
    code === 0x5f || code === 0x2d || code === 0x2e || code === 0x2f || code === 0x3d; // _ - . / =
}
