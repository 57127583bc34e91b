// The bodies of GridDB's handshake statements (after the statement id; griddb-frame.ts draws the
// head) and the login checks. From the C client's NodeConnection::connect / loginInternal and
// the server's LoginHandler (spec/internals.md §4.4):
//
//   CONNECT request: | protocolVersion i32 | controlSize u32 | plainOk i8 | secureOk i8 | ... |
//   CONNECT reply:   | authMode i8 = 0 (NONE) | serverVersion i32 | authType i8 = 0 (internal) |
//                    | controlSize u32 = 2 | plainOk i8 = 1 | secureOk i8 = 0 |
//   LOGIN request:   | optional request | user str | passwordDigest str | statementTimeout i32 |
//                    | ownerMode i8 | clusterName str | authMode i8 (and a challenge, never sent
//                    by a client whose server answered mode NONE) |
//   LOGIN reply:     | authMode i8 = 0 | databaseId i64 = 0 (public) |
//   optional request: | size i32 | entries |; an entry is | type i16 | value |, and the types over
//                    11000 come in ranges: | rangeType i16 (a multiple of 1000) | size i32 | entries |
//
// The password travels as the lower-case hex SHA-256 of the password, which is what the node's
// password file keeps, so the check compares digests (in constant time). Authentication mode NONE
// is the only one: the C client has challenge authentication compiled off and refuses any other.

import { timingSafeEqual } from 'node:crypto';
import { ByteReader } from '../../encoding/byte-reader.ts';
import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { USER_NAME_LENGTH_MAX } from '../../base/limits.ts';
import { DATABASE_PUBLIC } from '../server-handshake.ts';
import type { LoginCheck } from '../server-options.ts';
import type { Principal } from '../../access/access-catalog.ts';
import { isStorageError } from '../../base/errors.ts';
import { GriddbError, GriddbErrorCode } from './griddb-error.ts';
import { GriddbFrameError, griddbDecode, griddbStringRead } from './griddb-frame.ts';
import { GRIDDB_PROTOCOL_VERSION } from './griddb-statements.ts';

const AUTH_MODE_NONE = 0;
const AUTH_TYPE_INTERNAL = 0;
const CONTROL_INFO_BYTES = 2;
const DATABASE_ID_PUBLIC = 0n;
/** Optional-request types (client.h OptionalRequest), those a LOGIN carries before its ranges. */
const OPTION_TRANSACTION_TIMEOUT = 1;
const OPTION_FOR_UPDATE = 2;
const OPTION_CONTAINER_LOCK_REQUIRED = 3;
const OPTION_SYSTEM_MODE = 4;
const OPTION_DB_NAME = 5;
const OPTION_RANGE_SIZE = 1000;
const OPTION_RANGE_START = 11 * OPTION_RANGE_SIZE;
/** The first entry of range 11000 when the client sends it: | sessionId i64 = 0 | UUID 16 |. */
const OPTION_CLIENT_ID = 11001;
const CLIENT_UUID_BYTES = 16;
const MS_PER_S = 1000;
/** A digest is 64 hex digits; anything longer is not one. */
const DIGEST_HEX_LENGTH = 64;

/** CONNECT: the protocol version, or GridDB's refusal of any version but 15. */
export function connectCheck(body: Uint8Array): void {
  const version = griddbDecode(() => new ByteReader(body).i32());
  if (version !== GRIDDB_PROTOCOL_VERSION) {
    throw new GriddbError(GriddbErrorCode.TXN_CLIENT_VERSION_NOT_ACCEPTABLE,
      `client protocol version ${version} is not accepted (this node speaks only ` +
      `${GRIDDB_PROTOCOL_VERSION}, as GridDB 5.x)`);
  }
}

export function connectReplyWrite(writer: ByteWriter): void {
  writer.i8(AUTH_MODE_NONE);
  writer.i32(GRIDDB_PROTOCOL_VERSION);
  writer.i8(AUTH_TYPE_INTERNAL);
  writer.u32(CONTROL_INFO_BYTES);
  writer.i8(1);
  writer.i8(0);
}

export interface LoginRequest {
  user: string;
  passwordDigestHex: string;
  clusterName: string;
  /** The DB_NAME option; the client leaves it out for the default database. */
  database: string;
  /** The CLIENT_ID option's UUID: the GridStore's, in its sessions' statements too. */
  clientUuid: Uint8Array | undefined;
  /** The TRANSACTION_TIMEOUT option (the client's transactionTimeout); 0 when absent. */
  transactionTimeoutMs: number;
}

export function loginDecode(body: Uint8Array): LoginRequest {
  return griddbDecode(() => {
    const reader = new ByteReader(body);
    const options = optionalRequestRead(reader);
    const database = options.database ?? DATABASE_PUBLIC;
    const user = griddbStringRead(reader, 'LOGIN user');
    const passwordDigestHex = griddbStringRead(reader, 'LOGIN password digest');
    reader.i32(); // statement timeout (s): the node's own limits apply
    reader.i8(); // owner mode
    const clusterName = griddbStringRead(reader, 'LOGIN cluster name');
    if (reader.remainingBytes > 0 && reader.i8() !== AUTH_MODE_NONE) {
      throw new GriddbFrameError('LOGIN asks for challenge authentication, which was not offered');
    }
    return { user, passwordDigestHex, clusterName, database, clientUuid: options.clientUuid,
      transactionTimeoutMs: options.transactionTimeoutMs };
  });
}

/**
 * Reads an optional request, keeping the database name, the transaction timeout and the client
 * id (the first entry of its range when present); the other ranged entries are skipped whole.
 */
function optionalRequestRead(reader: ByteReader): { database: string | undefined;
  clientUuid: Uint8Array | undefined; transactionTimeoutMs: number; } {
  const sizeBytes = reader.i32();
  if (sizeBytes < 0 || sizeBytes > reader.remainingBytes) {
    throw new GriddbFrameError(`optional request size ${sizeBytes} is outside ` +
      `0..${reader.remainingBytes} bytes`);
  }
  const end = reader.offsetBytes + sizeBytes;
  let database: string | undefined;
  let clientUuid: Uint8Array | undefined;
  let transactionTimeoutMs = 0;
  while (reader.offsetBytes < end) {
    const type = reader.i16();
    if (type >= OPTION_RANGE_START && type % OPTION_RANGE_SIZE === 0) {
      const rangeBytes = reader.i32();
      if (rangeBytes < 0 || reader.offsetBytes + rangeBytes > end) {
        throw new GriddbFrameError(`optional request range ${type} of ${rangeBytes} bytes ` +
          `runs past its request`);
      }
      const range = new ByteReader(reader.bytes(rangeBytes));
      if (type === OPTION_CLIENT_ID - 1 && range.remainingBytes > 0 &&
        range.i16() === OPTION_CLIENT_ID) {
        range.i64();
        clientUuid = range.bytes(CLIENT_UUID_BYTES).slice();
      }
    } else if (type === OPTION_TRANSACTION_TIMEOUT) {
      const seconds = reader.i32();
      if (seconds > 0) transactionTimeoutMs = seconds * MS_PER_S;
    } else if (type === OPTION_FOR_UPDATE || type === OPTION_CONTAINER_LOCK_REQUIRED ||
      type === OPTION_SYSTEM_MODE) {
      reader.i8();
    } else if (type === OPTION_DB_NAME) {
      database = griddbStringRead(reader, 'database name option');
    } else {
      throw new GriddbFrameError(`optional request type ${type} is not one a LOGIN carries`);
    }
  }
  if (reader.offsetBytes !== end) {
    throw new GriddbFrameError('optional request entries run past its size');
  }
  return { database, clientUuid, transactionTimeoutMs };
}

/**
 * GridDB's login checks, in its order: the cluster name, then user and password, then the
 * database (an administrator may use only `public` here: store has no other databases). A wrong
 * user and a wrong password give the same error after the same work.
 */
export async function loginCheck(
  request: LoginRequest,
  node: { clusterName: string; lookupPasswordDigest: (user: string) =>
    string | undefined | Promise<string | undefined>; loginCheck?: LoginCheck | undefined },
): Promise<Principal> {
  if (request.clusterName !== node.clusterName) {
    throw new GriddbError(GriddbErrorCode.TXN_CLUSTER_NAME_INVALID,
      `cluster name invalid (input=${request.clusterName}, expected=${node.clusterName})`);
  }
  const known = request.user.length <= USER_NAME_LENGTH_MAX
    ? await node.lookupPasswordDigest(request.user) : undefined;
  const expected = Buffer.from((known ?? '').toLowerCase().padEnd(DIGEST_HEX_LENGTH, '-')
    .slice(0, DIGEST_HEX_LENGTH));
  const given = Buffer.from(request.passwordDigestHex.toLowerCase().padEnd(DIGEST_HEX_LENGTH, '+')
    .slice(0, DIGEST_HEX_LENGTH));
  const equal = timingSafeEqual(expected, given);
  if (!equal || known === undefined || request.passwordDigestHex.length !== DIGEST_HEX_LENGTH) {
    throw new GriddbError(GriddbErrorCode.TXN_AUTH_FAILED,
      `authentication failed (user=${request.user})`);
  }
  if (node.loginCheck !== undefined) {
    try {
      return node.loginCheck({ user: request.user, database: request.database });
    } catch (error) {
      // GridDB's LoginHandler answers every refusal of a database with TXN_AUTH_FAILED.
      if (!isStorageError(error)) throw error;
      throw new GriddbError(GriddbErrorCode.TXN_AUTH_FAILED, error.message);
    }
  }
  if (request.database.toLowerCase() !== DATABASE_PUBLIC) {
    throw new GriddbError(GriddbErrorCode.TXN_AUTH_FAILED,
      `database name invalid (${request.database}): store has only "${DATABASE_PUBLIC}"`);
  }
  return { user: request.user, admin: true, database: DATABASE_PUBLIC };
}

export function loginReplyWrite(writer: ByteWriter): void {
  writer.i8(AUTH_MODE_NONE);
  writer.i64(DATABASE_ID_PUBLIC);
}
