// Which database a container belongs to (spec §4.7): the engine keys a container by its
// *container key*, the name qualified by its database id, as GridDB's FullContainerKey holds
// (dbId, name). The key is the only place the database is kept: the catalog keys by it, the
// xlog's CREATE_CONTAINER and the checkpoint's catalog snapshot record it as the schema's name,
// so a restart reads each container back into its database with no format change.
//
//   database public (id 0)   key = name                           (every file written before
//                                                                   databases read as before)
//   database id n ≥ 1        key = U+0001 n U+0001 name           e.g. "\u00011\u0001sensor"
//
// U+0001 is no name character (names.ts), so no user can spell a key, and public's key is the
// name itself, so the public path does no work. The partition is the name's, not the key's:
// GridDB hashes the base name or affinity only (KeyDataStore::resolvePartitionId), and its
// client computes the partition from the name alone (partition-hash.ts strips the prefix).
// Requests are qualified where they enter the engine with the connection's database and
// results show the name (containerBaseName).

import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';

/** A database's id: public is 0; created ones count from 1 (access-catalog.ts). */
export type DatabaseId = number;

export const DATABASE_ID_PUBLIC: DatabaseId = 0;

const KEY_MARK = '\u0001';
const KEY_MARK_CODE = 0x01;
/**
 * Ids are never reused, so they run past the database count: bound them all the same. The
 * largest is no database's: a connection to a database dropped since its login works there.
 */
export const DATABASE_ID_MAX = 0x7fff_ffff;
export const DATABASE_ID_DROPPED: DatabaseId = DATABASE_ID_MAX;

/**
 * The container key of `name` in `databaseId`. Throws INVALID_NAME for a name that already holds
 * a key's mark: a name from a request could otherwise reach another database's containers.
 */
export function containerKey(databaseId: DatabaseId, name: string): string {
  assert(Number.isInteger(databaseId));
  assert(databaseId >= 0 && databaseId <= DATABASE_ID_MAX);
  if (name.indexOf(KEY_MARK) >= 0) {
    throw new StorageError('INVALID_NAME',
      `invalid container name ${JSON.stringify(name)}: character "\\u0001" is not allowed`);
  }
  return databaseId === DATABASE_ID_PUBLIC ? name : `${KEY_MARK}${databaseId}${KEY_MARK}${name}`;
}

/** The database of a container key (public for a plain name). */
export function containerDatabaseId(key: string): DatabaseId {
  if (key.charCodeAt(0) !== KEY_MARK_CODE) return DATABASE_ID_PUBLIC;
  const end = key.indexOf(KEY_MARK, 1);
  assert(end > 1, 'a container key has its closing mark');
  return Number(key.slice(1, end));
}

/** The name a container key shows its users: the key without its database. */
export function containerBaseName(key: string): string {
  if (key.charCodeAt(0) !== KEY_MARK_CODE) return key;
  const end = key.indexOf(KEY_MARK, 1);
  assert(end > 1, 'a container key has its closing mark');
  return key.slice(end + 1);
}

/** Whether a key is of a database other than public (the cheap test of the public path). */
export function isQualifiedContainerKey(key: string): boolean {
  return key.charCodeAt(0) === KEY_MARK_CODE;
}

const KEY_DATABASE_PARTS = /\u0001\d+\u0001/g;

/**
 * A message as a user reads it: every container key in it shown as its name. Error replies go
 * through this once (wire-error.ts), so the engine's messages may name containers by key.
 */
export function messageWithoutContainerKeys(message: string): string {
  return message.indexOf(KEY_MARK) < 0 ? message : message.replace(KEY_DATABASE_PARTS, '');
}

/**
 * The key of a name given in `databaseId`, or of a key the engine handed out there (a data
 * partition's, a table's schema name): a key of another database is refused as no name may be,
 * so a quoted SQL identifier cannot reach across databases.
 */
export function containerKeyIn(databaseId: DatabaseId, nameOrKey: string): string {
  if (!isQualifiedContainerKey(nameOrKey)) return containerKey(databaseId, nameOrKey);
  if (containerDatabaseId(nameOrKey) !== databaseId) return containerKey(databaseId, nameOrKey);
  return nameOrKey;
}

/** A schema as its database's users see it: named by its name (the same object in public). */
export function schemaShownAs<S extends { readonly name: string }>(schema: S): S {
  return isQualifiedContainerKey(schema.name) ? { ...schema, name: containerBaseName(schema.name) } : schema;
}
