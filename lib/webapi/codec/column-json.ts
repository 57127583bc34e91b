// Columns as the web API names them: GridDB's GSType names (`STRING`, `TIMESTAMP`,
// `INTEGER_ARRAY`), `timePrecision` only on TIMESTAMP columns, and for the container info the
// column's index types (`["TREE"]`; a row key column lists its implicit TREE index, as GridDB).

import {
  ARRAY_ELEMENT_TYPES, COLUMN_TYPES, type ColumnType,
} from '../../schema/column-type.ts';
import type { ColumnSchema } from '../../schema/container-schema.ts';

export interface ColumnJson {
  name: string;
  type: string;
  timePrecision?: string;
  index?: string[];
}

export function gsTypeName(column: Pick<ColumnSchema, 'type' | 'array'>): string {
  return column.array ? `${column.type}_ARRAY` : column.type;
}

/** `INTEGER_ARRAY` → INTEGER, array; undefined for a name that is not a GSType. */
export function parseGsTypeName(name: string): { type: ColumnType; array: boolean } | undefined {
  const array = name.endsWith('_ARRAY');
  const scalar = array ? name.slice(0, -'_ARRAY'.length) : name;
  const type = COLUMN_TYPES.find((t) => t === scalar);
  if (type === undefined) return undefined;
  if (array && !ARRAY_ELEMENT_TYPES.includes(type)) return undefined;
  return { type, array };
}

export function columnJson(column: ColumnSchema, index?: string[]): ColumnJson {
  const json: ColumnJson = { name: column.name, type: gsTypeName(column) };
  if (index !== undefined) json.index = index;
  if (column.type === 'TIMESTAMP' && !column.array) {
    json.timePrecision = column.timePrecision ?? 'MILLISECOND';
  }
  return json;
}
