// How requests name containers, sessions and statements.
//
//   name ref    | partitionId u32 | name string |
//   schema ref  | partitionId u32 | name string | containerId varuint | schemaVersion varuint |
//   statement   | sessionId varuint | statementId varuint |
//
// The client computes a container's partition itself (lib/schema/partition-hash.ts) and sends it;
// the node refuses a request whose partition does not hold the container (PARTITION_MISMATCH)
// rather than look elsewhere. A schema ref also names the container id and schema version the rows
// or keys in the request were encoded with; the node decodes them only when both match.
//
// sessionId 0 is the connection's auto-commit session; others come from SESSION_OPEN. statementId
// numbers a client's write requests from 1 up, over all its connections: a request retried with
// the same statementId (after a broken connection) is answered with the first result and not
// applied again.

import type { ByteReader } from '../encoding/byte-reader.ts';
import type { ByteWriter } from '../encoding/byte-writer.ts';
import { protocolError } from './frame.ts';

export const AUTO_COMMIT_SESSION_ID = 0;

export interface NameRef {
  partitionId: number;
  name: string;
}

export interface SchemaRef extends NameRef {
  containerId: number;
  schemaVersion: number;
}

export interface Statement {
  sessionId: number;
  /** ≥ 1, unique per client. */
  statementId: number;
}

export function nameRefWrite(writer: ByteWriter, ref: NameRef): void {
  writer.u32(ref.partitionId);
  writer.string(ref.name);
}

export function nameRefRead(reader: ByteReader): NameRef {
  const partitionId = reader.u32();
  return { partitionId, name: reader.string() };
}

export function schemaRefWrite(writer: ByteWriter, ref: SchemaRef): void {
  nameRefWrite(writer, ref);
  writer.varuint(ref.containerId);
  writer.varuint(ref.schemaVersion);
}

export function schemaRefRead(reader: ByteReader): SchemaRef {
  const { partitionId, name } = nameRefRead(reader);
  return { partitionId, name, containerId: reader.varuint(), schemaVersion: reader.varuint() };
}

export function statementWrite(writer: ByteWriter, statement: Statement): void {
  writer.varuint(statement.sessionId);
  writer.varuint(statement.statementId);
}

export function statementRead(reader: ByteReader): Statement {
  const sessionId = reader.varuint();
  const statementId = reader.varuint();
  if (statementId === 0) throw protocolError('statement id 0 (ids start at 1)');
  return { sessionId, statementId };
}
