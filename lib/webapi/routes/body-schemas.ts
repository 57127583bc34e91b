// Shapes of the JSON bodies, as TypeBox schemas that fastify checks before a route runs. They
// play the part of GridDB's JSON mapping (Jackson): a member of the wrong JSON type is a 400
// `Mapping JSON data error at ...` naming it; missing members and bad values are the routes'
// to report, with the spec's own messages ('limit' is invalid, Container name is invalid, ...),
// so every member is optional here. A member no route reads is refused (400 `Unrecognized field
// 'x' at object 0`): ignoring it would let a caller believe it was obeyed (a `limit` beside a TQL
// statement used to return every row).

import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { badRequest } from '../errors/webapi-error.ts';

const optional = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
/** Every body object: its members and no others. */
const closed = { additionalProperties: false } as const;
const whole = Type.Integer();
const keyValue = Type.Union([Type.String(), Type.Number(), Type.Boolean()]);

export const CreateContainerBody = Type.Object({
  container_name: optional(Type.String()),
  container_type: optional(Type.String()),
  rowkey: optional(Type.Boolean()),
  columns: optional(Type.Array(Type.Object({
    name: optional(Type.String()),
    type: optional(Type.String()),
    index: optional(Type.Array(Type.String())),
    timePrecision: optional(Type.String()),
  }, closed))),
}, closed);
export type CreateContainerBody = Static<typeof CreateContainerBody>;

export const DeleteContainersBody = Type.Array(Type.Union([Type.String(), Type.Null()]));

export const RowsQueryBody = Type.Object({
  limit: optional(whole),
  offset: optional(whole),
  condition: optional(Type.String()),
  sort: optional(Type.String()),
  fileNameCol: optional(Type.String()),
}, closed);
export type RowsQueryBody = Static<typeof RowsQueryBody>;

export const KeysBody = Type.Array(Type.Union([keyValue, Type.Null()]));

export const MultiGetBody = Type.Array(Type.Object({
  name: optional(Type.String()),
  startKeyValue: optional(keyValue),
  finishKeyValue: optional(keyValue),
  keyValues: optional(Type.Array(keyValue)),
  offset: optional(whole),
  limit: optional(whole),
}, closed));
export type MultiGetBody = Static<typeof MultiGetBody>;

export const MultiPutBody = Type.Array(Type.Object({
  containerName: optional(Type.String()),
  rows: optional(Type.Array(Type.Unknown())),
}, closed));
export type MultiPutBody = Static<typeof MultiPutBody>;

export const TqlBody = Type.Array(Type.Object({
  name: optional(Type.String()),
  stmt: optional(Type.String()),
  columns: optional(Type.Array(Type.String())),
  hasPartialExecution: optional(Type.Boolean()),
}, closed));
export type TqlBody = Static<typeof TqlBody>;

/** The SQL endpoints' body: `[{"stmt": "..."}]`; `type` exists in GridDB's DTO and is unused. */
export const SqlBody = Type.Array(Type.Union([Type.Null(), Type.Object({
  stmt: optional(Type.String()),
  type: optional(Type.String()),
}, closed)]));
export type SqlBody = Static<typeof SqlBody>;

/**
 * ajv's path of a bad member (`/0/name`) in GridDB's words, with the JSON type expected; a member
 * the schema does not have (`params.additionalProperty`) is named, with the ones it has.
 */
export function mappingErrorMessage(instancePath: string, params: Record<string, unknown>,
  parentSchema?: unknown): string {
  const where = instancePath.split('/').filter((part) => part !== '').map((part) =>
    /^\d+$/.test(part) ? `object ${part}` : `field '${part}'`).join(' ');
  const at = where === '' ? 'the body' : where;
  if (typeof params['additionalProperty'] === 'string') {
    const properties = (parentSchema as { properties?: Record<string, unknown> } | undefined)
      ?.properties;
    return unknownMemberMessage(at, params['additionalProperty'],
      Object.keys(properties ?? {}));
  }
  const expected = typeof params['type'] === 'string' ? ` (expected ${params['type']})` : '';
  return `Mapping JSON data error at ${at}${expected}`;
}

/** Characters of an unknown member's name quoted in the message, at most. */
const MEMBER_QUOTED_LENGTH_MAX = 100;

function unknownMemberMessage(at: string, name: string, known: readonly string[]): string {
  return `Unrecognized field '${name.slice(0, MEMBER_QUOTED_LENGTH_MAX)}' at ${at}` +
    (known.length === 0 ? '' : ` (known fields: ${known.join(', ')})`);
}

/** The 400 for a member of element `index` of a body that no route reads (streamed bodies). */
export function unknownMember(index: number, name: string, known: ReadonlySet<string>) {
  return badRequest(unknownMemberMessage(`object ${index}`, name, [...known]));
}
