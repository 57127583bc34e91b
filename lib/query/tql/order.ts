// ORDER BY: column names only (spec/surface.md §3.6), ASC by default, keys applied in turn; NULL
// sorts as the largest value (last ascending, first descending); NaN sorts above every number and
// below NULL. BOOL orders FALSE before TRUE; STRING by UTF-16 code units, as row keys do. Rows that
// tie on every key keep their scan order (row-key order): sorting is stable.

import type { Row } from '../../schema/column-type.ts';
import { compareDoubles, compareIntegrals, type Integral } from './arithmetic.ts';
import type { TqlOrderKey } from './ast.ts';
import type { Binder } from './bind.ts';
import { tqlSemanticError, type TqlPosition } from './error.ts';
import {
  isFloating, isIntegral, isScalarOf, isTimestamp, typeName, type TqlType, type TqlValue,
} from './types.ts';

export interface OrderKey {
  readonly columnIndex: number;
  readonly descending: boolean;
  readonly type: TqlType;
  readonly position: TqlPosition;
}

export type RowComparator = (a: Row, b: Row) => number;

export function bindOrderKeys(keys: readonly TqlOrderKey[], binder: Binder): OrderKey[] {
  return keys.map((key) => {
    const syntax = key.expression;
    if (syntax.kind !== 'name') {
      throw tqlSemanticError('ORDER BY takes column names, not expressions or functions',
        syntax.position);
    }
    const column = binder.column(syntax);
    if (valueOrder(column.type) === undefined) {
      throw tqlSemanticError(`cannot ORDER BY column ${syntax.name} (${typeName(column.type)}): ` +
        'only BOOL, STRING, numeric and TIMESTAMP columns sort', syntax.position);
    }
    return {
      columnIndex: column.columnIndex, descending: key.direction === 'DESC', type: column.type,
      position: key.position,
    };
  });
}

/** The order of two non-NULL values of one column type; undefined when the type does not sort. */
function valueOrder(type: TqlType): ((a: TqlValue, b: TqlValue) => number) | undefined {
  if (isFloating(type)) return (a, b) => compareDoubles(a as number, b as number);
  if (isIntegral(type) || isTimestamp(type)) {
    return (a, b) => compareIntegrals(a as Integral, b as Integral);
  }
  if (isScalarOf(type, 'BOOL')) return (a, b) => Number(a) - Number(b);
  if (isScalarOf(type, 'STRING')) {
    return (a, b) => (a === b ? 0 : (a as string) < (b as string) ? -1 : 1);
  }
  return undefined;
}

/** Compares two rows by the keys in turn; 0 when they tie on all of them. */
export function rowComparator(keys: readonly OrderKey[]): RowComparator {
  const parts = keys.map((key) => {
    const order = valueOrder(key.type)!;
    const sign = key.descending ? -1 : 1;
    const index = key.columnIndex;
    return (a: Row, b: Row): number => {
      const x = a[index] as TqlValue;
      const y = b[index] as TqlValue;
      if (x === null || y === null) {
        if (x === y) return 0;
        return sign * (x === null ? 1 : -1); // NULL is the largest value
      }
      return sign * order(x, y);
    };
  });
  if (parts.length === 1) return parts[0]!;
  return (a, b) => {
    for (const part of parts) {
      const order = part(a, b);
      if (order !== 0) return order;
    }
    return 0;
  };
}
