// What the routing runner (routing-request-runner.ts) reads and rewrites of the frames it passes
// between the network side and the engine threads, without decoding whole messages: the status of
// a reply, the container a request names, and the id at the start of a body.
//
// A reply frame, as the engine side encodes it (lib/protocol/frame.ts draws it):
//
//   | lengthBytes u32 | magic u16 | version u8 | messageType u8 | status u8 | requestId u32 |
//   0                                                           8           9               13
//   | body |
//
// Requests that name one container carry its name ref (wire-refs.ts) after a fixed number of
// varuints: none (CONTAINER_INFO, LOG_SYNC), a session id (ROW_GET, QUERY) or a statement (session id and
// statement id: the writes, index and transaction requests). Sessions, query results and fetches
// start with the id they name (messages-connection.ts, messages-query.ts).

import { assert } from '../base/assert.ts';
import { ByteReader } from '../encoding/byte-reader.ts';
import { ByteWriter } from '../encoding/byte-writer.ts';
import { FRAME_HEADER_BYTES, FrameStatus } from '../protocol/frame.ts';
import { MessageType } from '../protocol/message-types.ts';
import type { SqlStatement } from '../sql/ast.ts';
import { parseSqlStatementCached } from '../sql/parse-cache.ts';
import { sqlQueryTables } from '../sql/query-tables.ts';
import type { RequestFrame } from './reply-frames.ts';
import type { RunOutcome } from './request-runner.ts';

const FRAME_STATUS_OFFSET_BYTES = 8;

/** Varuints before the name ref, by the message types that name one container. */
const NAME_REF_OFFSET_VARUINTS: ReadonlyMap<number, number> = new Map([
  [MessageType.CONTAINER_INFO, 0],
  [MessageType.LOG_SYNC, 0],
  [MessageType.ROW_GET, 1],
  [MessageType.ROW_GET_FOR_UPDATE, 1],
  [MessageType.QUERY, 1],
  ...[
    MessageType.CONTAINER_DROP, MessageType.CREATE_INDEX, MessageType.DROP_INDEX,
    MessageType.ROW_PUT, MessageType.ROW_PUT_EXISTED, MessageType.ROW_REMOVE,
    MessageType.SET_AUTO_COMMIT,
    MessageType.COMMIT, MessageType.ABORT,
  ].map((type) => [type, 2] as const),
]);

/** Whether the message type names one container by a name ref. */
export function namesOneContainer(messageType: number): boolean {
  return NAME_REF_OFFSET_VARUINTS.has(messageType);
}

/**
 * The container name a request names; undefined when the body is too short or malformed to say
 * (the engine thread that gets it then answers the protocol error).
 */
export function requestContainerName(frame: RequestFrame): string | undefined {
  const varuintCount = NAME_REF_OFFSET_VARUINTS.get(frame.messageType);
  assert(varuintCount !== undefined);
  try {
    const reader = new ByteReader(frame.body);
    for (let i = 0; i < varuintCount; i++) reader.varuint();
    reader.u32(); // the partition the client computed: the engine checks it
    return reader.string();
  } catch {
    return undefined;
  }
}

/** The name inside a CONTAINER_PUT's definition JSON; undefined when it has none to route by. */
export function containerPutName(frame: RequestFrame): string | undefined {
  try {
    const reader = new ByteReader(frame.body);
    reader.varuint(); // session id
    reader.varuint(); // statement id
    reader.u32(); // partition id
    const definition = JSON.parse(reader.string()) as { name?: unknown } | null;
    const name = definition?.name;
    return typeof name === 'string' && name.length > 0 ? name : undefined;
  } catch {
    return undefined;
  }
}

/** The id a body starts with and where the rest begins; undefined for a malformed body. */
export function leadingId(body: Uint8Array): { id: number; restOffsetBytes: number } | undefined {
  try {
    const reader = new ByteReader(body);
    const id = reader.varuint();
    return { id, restOffsetBytes: reader.offsetBytes };
  } catch {
    return undefined;
  }
}

/** A copy of `body` with its leading id replaced by `id`. */
export function withLeadingId(body: Uint8Array, id: number): Uint8Array {
  const at = leadingId(body);
  assert(at !== undefined);
  const rest = body.subarray(at.restOffsetBytes);
  const writer = new ByteWriter(rest.byteLength + 10);
  writer.varuint(id);
  writer.bytes(rest);
  return writer.finish();
}

/** The request `frame` with another body (a sub-request of the same type and request id). */
export function requestWithBody(frame: RequestFrame, body: Uint8Array): RequestFrame {
  return { messageType: frame.messageType, requestId: frame.requestId, body };
}

/** Writes a request body; sized from a hint, bounded by the message limit. */
export function requestBody(
  sizeHintBytes: number,
  messageBytesMax: number,
  write: (writer: ByteWriter) => void,
): Uint8Array {
  const writer = new ByteWriter(Math.max(16, Math.min(sizeHintBytes, messageBytesMax)),
    { capacityBytesMax: messageBytesMax });
  write(writer);
  return writer.finish();
}

/** Whether an outcome is a reply (not an error reply, not a protocol failure). */
export function isReply(outcome: RunOutcome): boolean {
  return outcome.closeReason === undefined &&
    outcome.bytes[FRAME_STATUS_OFFSET_BYTES] === FrameStatus.REPLY;
}

/** The body of a reply frame (a view). */
export function replyBody(outcome: RunOutcome): Uint8Array {
  assert(outcome.bytes.byteLength >= FRAME_HEADER_BYTES);
  return outcome.bytes.subarray(FRAME_HEADER_BYTES);
}

/**
 * What a request sent to several engine threads answers when one did not reply: the first that
 * broke the protocol, else the first error, in group order; undefined when every one replied.
 */
export function firstFailure(outcomes: readonly RunOutcome[]): RunOutcome | undefined {
  return outcomes.find((outcome) => outcome.closeReason !== undefined) ??
    outcomes.find((outcome) => !isReply(outcome));
}

/**
 * The table an SQL_EXECUTE statement reads or changes, for routing to its partition's group;
 * undefined when it names none (SELECT 1+1) or does not parse (group 0 then answers the error).
 */
export function sqlRequestTableName(frame: RequestFrame): string | undefined {
  return sqlRequestTableNames(frame)[0];
}

/**
 * Every table an SQL_EXECUTE statement reads or changes (a join or subquery names several),
 * metatables left out; empty when it names none or does not parse.
 */
export function sqlRequestTableNames(frame: RequestFrame): string[] {
  try {
    const statement = parseSqlStatementCached(new ByteReader(frame.body).string()).statement;
    const query = statement.kind === 'select' ? statement.query
      : statement.kind === 'explain' && statement.statement.kind === 'select' ? statement.statement.query : undefined;
    if (query !== undefined) return sqlQueryTables(query).filter((name) => !name.startsWith('#'));
    const table = sqlStatementTable(statement);
    return table === undefined ? [] : [table];
  } catch {
    return [];
  }
}

function sqlStatementTable(statement: SqlStatement): string | undefined {
  switch (statement.kind) {
    case 'select': return sqlQueryTables(statement.query)[0];
    case 'explain': return sqlStatementTable(statement.statement);
    case 'insert': case 'update': case 'delete': case 'createIndex': case 'dropIndex':
    case 'alterTableAddColumns': case 'alterTableRenameColumn': case 'alterTableDropPartition':
      return statement.table.text;
    case 'createTable': case 'dropTable': case 'createView': case 'dropView': return statement.name.text;
    default: return undefined;
  }
}
