// Reading untrusted, JSON-shaped definitions member by member. Every problem is an INVALID_SCHEMA
// StorageError naming where it is; nothing here lets a TypeError escape. Only own members are
// read, so a member named like an Object.prototype property (`constructor`, `toString`) is just
// an unknown member. A member that is null counts as absent, as a JSON client would mean it.

import { StorageError } from '../base/errors.ts';
import { describeValue } from './describe-value.ts';

export type DefinitionObject = Readonly<Record<string, unknown>>;

/**
 * Checks that `value` is a plain object whose members are all in `membersAllowed`; `where` names
 * it in messages (`container "c"`, `column 2 of "c"`).
 */
export function definitionObject(
  value: unknown,
  where: string,
  membersAllowed: ReadonlySet<string>,
): DefinitionObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw schemaInvalid(`${where}: expected an object, got ${describeValue(value)}`);
  }
  for (const key of Object.keys(value)) {
    if (!membersAllowed.has(key)) {
      const allowed = [...membersAllowed].join(', ');
      throw schemaInvalid(`${where}: unknown member ${JSON.stringify(key)} (known: ${allowed})`);
    }
  }
  return value as DefinitionObject;
}

/** The own member `key`, or undefined when missing or null. */
export function definitionMember(object: DefinitionObject, key: string): unknown {
  if (!Object.hasOwn(object, key)) return undefined;
  const value = object[key];
  return value === null ? undefined : value;
}

export function definitionBoolean(object: DefinitionObject, key: string, where: string) {
  const value = definitionMember(object, key);
  if (value === undefined || typeof value === 'boolean') return value;
  throw schemaInvalid(`${where}: ${key} must be a boolean, got ${describeValue(value)}`);
}

/** An upper-cased enumeration member (`tree` → `TREE`), or undefined when absent. */
export function definitionEnumText(object: DefinitionObject, key: string, where: string) {
  const value = definitionMember(object, key);
  if (value === undefined) return undefined;
  if (typeof value !== 'string') {
    throw schemaInvalid(`${where}: ${key} must be a string, got ${describeValue(value)}`);
  }
  return value.toUpperCase();
}

/** An array member, or undefined when absent. Callers check its length before reading items. */
export function definitionArray(
  object: DefinitionObject,
  key: string,
  where: string,
): readonly unknown[] | undefined {
  const value = definitionMember(object, key);
  if (value === undefined || Array.isArray(value)) return value;
  throw schemaInvalid(`${where}: ${key} must be an array, got ${describeValue(value)}`);
}

export function schemaInvalid(message: string): StorageError {
  return new StorageError('INVALID_SCHEMA', message);
}
