// GridDB's error reply: after the reply head (griddb-frame.ts) and a result byte other than
// SUCCESS comes an error stack, which the C client decodes (server/gs_error_common.h
// GSExceptionCoder::decode) and hands to the application as a GSResult code:
//
//   | count i32 | count × entry | errorCodeName str | paramCount i32 | paramCount × (name, value) |
//   entry: | errorCode i32 | message str | typeName str | fileName str | functionName str | line i32 |
//
// str is GridDB's string: i32 UTF-8 size, then the UTF-8 bytes. The node sends one entry, its
// code's name and no parameters (the client appends the address and partition itself).

import type { ByteWriter } from '../../encoding/byte-writer.ts';
import { griddbStringWrite } from './griddb-frame.ts';

/**
 * The codes and names this node sends. 10005 and 10053 are GridDB's (the web API's
 * ConnectionUtils.java tests for them: spec/surface.md §1.3). For the others the name is the one
 * GridDB's server throws in that case but its number is not in the material here (gs_error.h is
 * not vendored): they are numbered in GridDB's transaction range and must be checked against a
 * GridDB node before an application relies on them. The connection limit is store's own code.
 */
export const GriddbErrorCode = {
  /** Wrong user, wrong password, or a database the user may not use (LoginHandler). */
  TXN_AUTH_FAILED: { code: 10005, name: 'TXN_AUTH_FAILED' },
  /** The client's clusterName is not this node's. */
  TXN_CLUSTER_NAME_INVALID: { code: 10053, name: 'TXN_CLUSTER_NAME_INVALID' },
  /** A CONNECT of a protocol version other than 15 (number unverified). */
  TXN_CLIENT_VERSION_NOT_ACCEPTABLE: { code: 10004, name: 'TXN_CLIENT_VERSION_NOT_ACCEPTABLE' },
  /** A statement sent before LOGIN (number unverified). */
  TXN_AUTH_REQUIRED: { code: 10006, name: 'TXN_AUTH_REQUIRED' },
  /** A statement this node does not implement yet (number unverified). */
  TXN_STATEMENT_TYPE_UNKNOWN: { code: 10007, name: 'TXN_STATEMENT_TYPE_UNKNOWN' },
  /** connectionLimit reached: store's LIMIT_EXCEEDED (lib/base/errors.ts). */
  LIMIT_EXCEEDED: { code: 100005, name: 'LIMIT_EXCEEDED' },
} as const;
export type GriddbErrorCode = (typeof GriddbErrorCode)[keyof typeof GriddbErrorCode];

export class GriddbError extends Error {
  constructor(readonly error: GriddbErrorCode, message: string) {
    super(message);
    this.name = 'GriddbError';
  }
}

/** Writes the error stack drawn above. */
export function griddbErrorStackWrite(writer: ByteWriter, error: GriddbErrorCode,
  message: string): void {
  writer.i32(1);
  writer.i32(error.code);
  griddbStringWrite(writer, message);
  griddbStringWrite(writer, '');
  griddbStringWrite(writer, '');
  griddbStringWrite(writer, '');
  writer.i32(0);
  griddbStringWrite(writer, error.name);
  writer.i32(0);
}
