// Shapes of the JSON bodies, as TypeBox schemas that fastify checks before a route runs. They
// play the part of GridDB's JSON mapping (Jackson): a member of the wrong JSON type is a 400
// `Mapping JSON data error at ...` naming it; missing members and bad values are the routes'
// to report, with the spec's own messages ('limit' is invalid, Container name is invalid, ...),
// so every member is optional here and extra members are ignored.

import { Type, type Static, type TSchema } from '@sinclair/typebox';

const optional = <T extends TSchema>(schema: T) => Type.Optional(Type.Union([schema, Type.Null()]));
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
  }))),
});
export type CreateContainerBody = Static<typeof CreateContainerBody>;

export const DeleteContainersBody = Type.Array(Type.Union([Type.String(), Type.Null()]));

export const RowsQueryBody = Type.Object({
  limit: optional(whole),
  offset: optional(whole),
  condition: optional(Type.String()),
  sort: optional(Type.String()),
  fileNameCol: optional(Type.String()),
});
export type RowsQueryBody = Static<typeof RowsQueryBody>;

export const KeysBody = Type.Array(Type.Union([keyValue, Type.Null()]));

export const MultiGetBody = Type.Array(Type.Object({
  name: optional(Type.String()),
  startKeyValue: optional(keyValue),
  finishKeyValue: optional(keyValue),
  keyValues: optional(Type.Array(keyValue)),
  offset: optional(whole),
  limit: optional(whole),
}));
export type MultiGetBody = Static<typeof MultiGetBody>;

export const MultiPutBody = Type.Array(Type.Object({
  containerName: optional(Type.String()),
  rows: optional(Type.Array(Type.Unknown())),
}));
export type MultiPutBody = Static<typeof MultiPutBody>;

export const TqlBody = Type.Array(Type.Object({
  name: optional(Type.String()),
  stmt: optional(Type.String()),
  columns: optional(Type.Array(Type.String())),
  hasPartialExecution: optional(Type.Boolean()),
}));
export type TqlBody = Static<typeof TqlBody>;

/** ajv's path of a bad member (`/0/name`) in GridDB's words, with the JSON type expected. */
export function mappingErrorMessage(instancePath: string, params: Record<string, unknown>):
  string {
  const where = instancePath.split('/').filter((part) => part !== '').map((part) =>
    /^\d+$/.test(part) ? `object ${part}` : `field '${part}'`).join(' ');
  const expected = typeof params['type'] === 'string' ? ` (expected ${params['type']})` : '';
  return `Mapping JSON data error at ${where === '' ? 'the body' : where}${expected}`;
}
