// Arbitraries for the TQL model test: a random schema (time series, collections keyed by INTEGER,
// LONG, STRING or two columns, keyless collections) with one to four value columns, rows whose
// values come from small domains full of awkward corners (NULL, NaN, ±INF, -0, int64 extremes,
// non-ASCII and wildcard characters), and random well-typed queries: WHERE over every operator,
// key ranges the planner can use, ORDER BY, LIMIT/OFFSET, or one aggregate.
//
// Expressions are built as reference trees (tql-reference.ts) whose text is the TQL the engine
// gets. They never fail at run time except where the reference says so (a SUM beyond LONG).

import fc from 'fast-check';
import { INT64_MAX, INT64_MIN, type Row } from '../../lib/schema/column-type.ts';
import type { ContainerDefinition } from '../../lib/schema/container-schema.ts';
import { timeSeriesCallArbitrary } from './tql-model-time-series-generators.ts';
import { textOf, type Kind, type RefExpr, type RefQuery } from './tql-reference.ts';

export const T0 = Date.UTC(2026, 0, 1);

export const KEY_KINDS = ['series', 'int', 'long', 'string', 'composite', 'keyless'] as const;
export type KeyKind = (typeof KEY_KINDS)[number];

const VALUE_TYPES = [
  'BOOL', 'STRING', 'INTEGER', 'LONG', 'DOUBLE', 'FLOAT', 'TIMESTAMP', 'GEOMETRY',
] as const;
type ValueType = (typeof VALUE_TYPES)[number];

export interface ModelColumn {
  name: string;
  type: ValueType;
  kind: Kind;
}

export interface ModelSchema {
  keyKind: KeyKind;
  columns: ModelColumn[];
  keyColumnCount: number;
  definition: Omit<ContainerDefinition, 'name'>;
}

const KIND_OF: Record<ValueType, Kind> = {
  BOOL: 'bool',
  STRING: 'string',
  INTEGER: 'int',
  LONG: 'int',
  DOUBLE: 'double',
  FLOAT: 'float',
  TIMESTAMP: 'time',
  GEOMETRY: 'geometry',
};

/** As GridDB prints them, so that rows read back equal the rows written. */
const GEOMETRIES = [
  'POINT(0 0)', 'POINT(1.5 -2)', 'POINT(2 2 5)', 'POINT(EMPTY)', 'LINESTRING(-1 -1,3 0.5)',
  'LINESTRING(0 0 0,1 1 1)', 'POLYGON((0 0,4 0,4 4,0 4,0 0))', 'POINT(3 1;4326)',
  'POLYGON((1 1,2 1,2 2,1 1);3857)',
];

const STRINGS = ['', 'a', 'b', 'ab', 'ba', 'A', 'aB', 'a%', '_b', 'abc', '\u{1F600}', 'é', "it's"];
const INTEGERS = [-4, -1, 0, 1, 2, 3, 4, 2_147_483_647, -2_147_483_648];
const LONGS = [-3n, -1n, 0n, 1n, 2n, 3n, INT64_MAX, INT64_MIN, 2n ** 53n + 1n];
const DOUBLES = [
  -1.5,
  -0,
  0,
  0.5,
  2,
  1e300,
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
];
const FLOATS = [-1.5, 0, 0.1, 2.5, 1e30, Number.NaN, Number.POSITIVE_INFINITY].map(Math.fround);

function valueArbitrary(type: ValueType): fc.Arbitrary<Row[number]> {
  const values: fc.Arbitrary<Row[number]> = (() => {
    switch (type) {
      case 'BOOL':
        return fc.boolean();
      case 'STRING':
        return fc.constantFrom(...STRINGS);
      case 'INTEGER':
        return fc.constantFrom(...INTEGERS);
      case 'LONG':
        return fc.constantFrom(...LONGS);
      case 'DOUBLE':
        return fc.constantFrom(...DOUBLES);
      case 'FLOAT':
        return fc.constantFrom(...FLOATS);
      case 'TIMESTAMP':
        return fc.integer({ min: 0, max: 120 }).map((k) => T0 + k * 500);
      case 'GEOMETRY':
        return fc.constantFrom(...GEOMETRIES);
    }
  })();
  return fc.option(values, { nil: null, freq: 4 });
}

/** ST_GeomFromText of a POINT literal. */
function pointOf(wkt: string): RefExpr {
  return { op: 'call', fn: 'ST_GEOMFROMTEXT', args: [literal(`'${wkt}'`, wkt, 'string')],
    kind: 'geometry' };
}

/** ST_MakeBox of six numbers, different on each axis, the corners in either order. */
function box3(): fc.Arbitrary<RefExpr> {
  const range = fc.tuple(fc.integer({ min: -4, max: 4 }), fc.integer({ min: 1, max: 4 }),
    fc.boolean()).map(([from, size, swap]) => (swap ? [from + size, from] : [from, from + size]));
  return fc.tuple(range, range, range).map(([x, y, z]): RefExpr => ({
    op: 'call', fn: 'ST_MAKEBOX', kind: 'geometry',
    args: [x[0]!, y[0]!, z[0]!, x[1]!, y[1]!, z[1]!]
      .map((n) => literal(String(n), BigInt(n), 'int')),
  }));
}

/** A column name in a random letter case: names are case-insensitive. */
function spelled(name: string): fc.Arbitrary<string> {
  return fc.constantFrom(name, name.toUpperCase());
}

export const schemaArbitrary: fc.Arbitrary<ModelSchema> = fc
  .record({
    keyKind: fc.constantFrom(...KEY_KINDS),
    valueTypes: fc.array(fc.constantFrom(...VALUE_TYPES), { minLength: 1, maxLength: 4 }),
  })
  .map(({ keyKind, valueTypes }) => {
    const keyColumns: ModelColumn[] = {
      series: [{ name: 'ts', type: 'TIMESTAMP', kind: 'time' }],
      int: [{ name: 'id', type: 'INTEGER', kind: 'int' }],
      long: [{ name: 'id', type: 'LONG', kind: 'int' }],
      string: [{ name: 'id', type: 'STRING', kind: 'string' }],
      composite: [
        { name: 'g', type: 'STRING', kind: 'string' },
        { name: 'n', type: 'INTEGER', kind: 'int' },
      ],
      keyless: [],
    }[keyKind] as ModelColumn[];
    const values = valueTypes.map((type, index): ModelColumn => ({
      name: `v${index}`,
      type,
      kind: KIND_OF[type],
    }));
    const columns = [...keyColumns, ...values];
    return {
      keyKind,
      columns,
      keyColumnCount: keyColumns.length,
      definition: {
        type: keyKind === 'series' ? 'TIME_SERIES' : 'COLLECTION',
        rowKey: keyColumns.length === 0 ? false : keyColumns.length,
        columns: columns.map((column) => ({ name: column.name, type: column.type })),
      },
    };
  });

function keyArbitrary(schema: ModelSchema): fc.Arbitrary<Row> {
  switch (schema.keyKind) {
    case 'series':
      return fc.integer({ min: 0, max: 59 }).map((k) => [T0 + k * 1000]);
    case 'int':
      return fc.integer({ min: -30, max: 30 }).map((k) => [k]);
    case 'long':
      return fc
        .oneof(
          fc.constantFrom(INT64_MIN, INT64_MAX, 2n ** 53n + 1n),
          fc.bigInt({ min: -30n, max: 30n }),
        )
        .map((k) => [k]);
    case 'string':
      return fc.constantFrom(...STRINGS, 'c', 'd', 'zz').map((k) => [k]);
    case 'composite':
      return fc.tuple(fc.constantFrom('a', 'b', 'c'), fc.integer({ min: 0, max: 9 }));
    case 'keyless':
      return fc.constant([]);
  }
}

export function rowArbitrary(schema: ModelSchema): fc.Arbitrary<Row> {
  const values = schema.columns
    .slice(schema.keyColumnCount)
    .map((column) => valueArbitrary(column.type));
  return fc
    .tuple(keyArbitrary(schema), fc.tuple(...values))
    .map(([key, rest]) => [...key, ...rest]);
}

/** Rows with distinct keys; sometimes many, so that scans cross pages and blocks. */
export function rowsArbitrary(schema: ModelSchema): fc.Arbitrary<Row[]> {
  const keyOf = (row: Row) =>
    JSON.stringify(row.slice(0, schema.keyColumnCount), (_, v) =>
      typeof v === 'bigint' ? `${v}n` : v,
    );
  const few =
    schema.keyKind === 'keyless'
      ? fc.array(rowArbitrary(schema), { maxLength: 40 })
      : fc.uniqueArray(rowArbitrary(schema), { maxLength: 40, selector: keyOf });
  if (schema.keyKind !== 'keyless' && schema.keyKind !== 'series') return few;
  // A time series or a keyless collection may also be long: thousands of rows, several blocks.
  const many = fc
    .tuple(fc.integer({ min: 1000, max: 2600 }), rowArbitrary(schema))
    .map(([count, template]) =>
      Array.from({ length: count }, (_, i): Row => {
        const row = template.slice();
        if (schema.keyKind === 'series') row[0] = T0 + i * 50;
        const valueIndex = schema.keyColumnCount + (i % (row.length - schema.keyColumnCount));
        if (i % 3 === 0) row[valueIndex] = null;
        return row;
      }),
    );
  return fc.oneof({ weight: 4, arbitrary: few }, { weight: 1, arbitrary: many });
}

// ---- expressions -------------------------------------------------------------------------------

const literal = (
  text: string,
  value: Extract<RefExpr, { op: 'literal' }>['value'],
  kind: Kind,
): RefExpr => ({ op: 'literal', text, value, kind });

const INT_LITERALS: RefExpr[] = [0n, 1n, -1n, 3n, -4n, 2_147_483_647n, INT64_MAX, INT64_MIN].map(
  (value) => literal(String(value), value, 'int'),
);
const DOUBLE_LITERALS: RefExpr[] = [
  literal('0.5', 0.5, 'double'),
  literal('-1.5', -1.5, 'double'),
  literal('2.0', 2, 'double'),
  literal('1e300', 1e300, 'double'),
  literal('NaN', Number.NaN, 'double'),
  literal('INF', Number.POSITIVE_INFINITY, 'double'),
  literal('-INF', Number.NEGATIVE_INFINITY, 'double'),
];
const STRING_LITERALS: RefExpr[] = [...STRINGS, 'c', 'zz'].map((value) =>
  literal(`'${value.replaceAll("'", "''")}'`, value, 'string'),
);

function timeLiteral(ms: number, zoned: boolean): RefExpr {
  const text = zoned
    ? new Date(ms + 3_600_000).toISOString().replace('Z', '+01:00')
    : new Date(ms).toISOString();
  return literal(`TIMESTAMP('${text}')`, BigInt(ms), 'time');
}

const timeLiteralArbitrary = fc
  .tuple(fc.integer({ min: -4, max: 260 }), fc.boolean())
  .map(([k, zoned]) => timeLiteral(T0 + k * 250, zoned));

const nullOf = (kind: Kind): RefExpr => literal('NULL', null, kind);

export class ExpressionArbitraries {
  constructor(
    private readonly schema: ModelSchema,
    /** Column names as the query spells them (random case). */
    private readonly names: readonly string[],
  ) {}

  private columns(kinds: readonly Kind[]): RefExpr[] {
    return this.schema.columns.flatMap((column, index) =>
      kinds.includes(column.kind)
        ? [{ op: 'column', name: this.names[index]!, index, kind: column.kind } as RefExpr]
        : [],
    );
  }

  private pick(choices: Array<fc.Arbitrary<RefExpr> | undefined>): fc.Arbitrary<RefExpr> {
    const present = choices.filter(
      (choice): choice is fc.Arbitrary<RefExpr> => choice !== undefined,
    );
    return fc.oneof(...present);
  }

  private columnOf(kinds: readonly Kind[]): fc.Arbitrary<RefExpr> | undefined {
    const columns = this.columns(kinds);
    return columns.length === 0 ? undefined : fc.constantFrom(...columns);
  }

  integer(depth: number): fc.Arbitrary<RefExpr> {
    const leaves = [this.columnOf(['int']), fc.constantFrom(...INT_LITERALS)];
    if (depth <= 0) return this.pick(leaves);
    const sub = this.integer(depth - 1);
    return this.pick([
      ...leaves,
      ...leaves,
      fc
        .tuple(fc.constantFrom('+', '-', '*') as fc.Arbitrary<'+' | '-' | '*'>, sub, sub)
        .map(([fn, a, b]): RefExpr => ({ op: 'arith', fn, a, b, kind: 'int' })),
      fc
        .tuple(
          fc.constantFrom('/', '%') as fc.Arbitrary<'/' | '%'>,
          sub,
          fc.constantFrom(3n, -2n, 7n),
        )
        .map(([fn, a, b]): RefExpr => ({
          op: 'arith',
          fn,
          a,
          b: literal(String(b), b, 'int'),
          kind: 'int',
        })),
      sub.map((a): RefExpr => ({ op: 'negate', a, kind: 'int' })),
      this.string(depth - 1).map((a): RefExpr => ({
        op: 'call',
        fn: 'CHAR_LENGTH',
        args: [a],
        kind: 'int',
      })),
      this.geometry().map((a): RefExpr => ({ op: 'call', fn: 'ST_GETSRID', args: [a], kind: 'int' })),
    ]);
  }

  /** A GEOMETRY: a column, ST_GeomFromText of a literal, or ST_MakeRect of distinct corners. */
  geometry(): fc.Arbitrary<RefExpr> {
    const corner = fc.integer({ min: -2, max: 5 });
    const side = fc.integer({ min: 1, max: 4 });
    return this.pick([
      this.columnOf(['geometry']),
      this.columnOf(['geometry']),
      fc.constantFrom(...GEOMETRIES, 'point( 1  1 )', 'POINT(0.5 0.5 -3)').map((wkt): RefExpr => ({
        op: 'call', fn: 'ST_GEOMFROMTEXT', args: [literal(`'${wkt}'`, wkt, 'string')],
        kind: 'geometry',
      })),
      fc.tuple(corner, corner, side, side).map(([x, y, w, h]): RefExpr => ({
        op: 'call', fn: 'ST_MAKERECT', kind: 'geometry',
        args: [x, y, x + w, y + h].map((n) => literal(String(n), BigInt(n), 'int')),
      })),
      box3(),
      // The forms of two POINTs.
      fc.tuple(corner, corner, side, side).map(([x, y, w, h]): RefExpr => ({
        op: 'call', fn: 'ST_MAKERECT', kind: 'geometry',
        args: [`POINT(${x} ${y})`, `POINT(${x + w} ${y + h})`].map((wkt) => pointOf(wkt)),
      })),
      box3().map((box): RefExpr => {
        const n = (box as Extract<RefExpr, { op: 'call' }>).args.map((arg) => textOf(arg));
        return { ...box as Extract<RefExpr, { op: 'call' }>,
          args: [pointOf(`POINT(${n.slice(0, 3).join(' ')})`),
            pointOf(`POINT(${n.slice(3, 6).join(' ')})`)] };
      }),
    ]);
  }

  /**
   * ST_QSFMBRIntersects of a surface from every maker (a cylinder's and a cone's axis along x, y
   * or z; ST_MakeQSF without cross terms: what the reference evaluates) and a 3-D box.
   */
  surfaceMeetsBox(): fc.Arbitrary<RefExpr> {
    const n = fc.integer({ min: -3, max: 3 });
    const point = fc.tuple(n, n, n);
    const axis = fc.tuple(fc.integer({ min: 0, max: 2 }), fc.constantFrom(1, 2, -1))
      .map(([i, length]) => [0, 1, 2].map((j) => (j === i ? length : 0)));
    const call = (fn: Extract<RefExpr, { op: 'call' }>['fn'], numbers: number[]): RefExpr => ({
      op: 'call', fn, kind: 'geometry',
      args: numbers.map((x) => literal(String(x), BigInt(x), 'int')),
    });
    const surface = fc.oneof(
      fc.tuple(point, fc.tuple(n, n, n)).map(([p, v]) => call('ST_MAKEPLANE', [...p, ...v])),
      fc.tuple(point, fc.integer({ min: 1, max: 4 }))
        .map(([p, r]) => call('ST_MAKESPHERE', [...p, r])),
      fc.tuple(point, axis, fc.integer({ min: -3, max: 3 }))
        .map(([p, v, r]) => call('ST_MAKECYLINDER', [...p, ...v, r])),
      fc.tuple(point, axis, fc.constantFrom(30, 60, 120, 390))
        .map(([p, v, degrees]) => call('ST_MAKECONE', [...p, ...v, degrees])),
      fc.tuple(fc.tuple(...[0, 1, 2].map(() => fc.integer({ min: -2, max: 2 }))),
        fc.tuple(...[0, 1, 2].map(() => fc.integer({ min: -4, max: 4 }))),
        fc.integer({ min: -6, max: 6 }))
        .map(([a, b, c]) => call('ST_MAKEQSF',
          [a[0]!, 0, 0, 0, a[1]!, 0, 0, 0, a[2]!, ...b, c])),
    );
    return fc.tuple(surface, box3()).map(([q, g]): RefExpr => ({
      op: 'call', fn: 'ST_QSFMBRINTERSECTS', args: [q, g], kind: 'bool',
    }));
  }

  /** A FLOAT or DOUBLE expression. */
  floating(depth: number): fc.Arbitrary<RefExpr> {
    const leaves = [this.columnOf(['float', 'double']), fc.constantFrom(...DOUBLE_LITERALS)];
    if (depth <= 0) return this.pick(leaves);
    const sub = this.numeric(depth - 1);
    return this.pick([
      ...leaves,
      ...leaves,
      fc
        .tuple(
          fc.constantFrom('+', '-', '*', '/') as fc.Arbitrary<'+' | '-' | '*' | '/'>,
          this.floating(depth - 1),
          sub,
        )
        .chain(([fn, a, b]) =>
          fc.boolean().map((swap): RefExpr => {
            const [x, y] = swap ? [b, a] : [a, b];
            const kind = x.kind === 'float' && y.kind === 'float' ? 'float' : 'double';
            return { op: 'arith', fn, a: x, b: y, kind };
          }),
        ),
      this.floating(depth - 1).map((a): RefExpr => ({ op: 'negate', a, kind: a.kind })),
      sub.map((a): RefExpr => ({ op: 'call', fn: 'ROUND', args: [a], kind: 'double' })),
    ]);
  }

  numeric(depth: number): fc.Arbitrary<RefExpr> {
    return fc.oneof(this.integer(depth), this.floating(depth));
  }

  string(depth: number): fc.Arbitrary<RefExpr> {
    const leaves = [this.columnOf(['string']), fc.constantFrom(...STRING_LITERALS)];
    if (depth <= 0) return this.pick(leaves);
    const sub = this.string(depth - 1);
    return this.pick([
      ...leaves,
      ...leaves,
      fc
        .tuple(fc.constantFrom('UPPER', 'LOWER') as fc.Arbitrary<'UPPER' | 'LOWER'>, sub)
        .map(([fn, a]): RefExpr => ({ op: 'call', fn, args: [a], kind: 'string' })),
      fc
        .tuple(sub, fc.oneof(sub, fc.constant(nullOf('string'))))
        .map(([a, b]): RefExpr => ({ op: 'call', fn: 'CONCAT', args: [a, b], kind: 'string' })),
      fc
        .tuple(sub, fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 }))
        .map(([a, start, length]): RefExpr => ({
          op: 'call',
          fn: 'SUBSTRING',
          kind: 'string',
          args: [
            a,
            literal(String(start), BigInt(start), 'int'),
            literal(String(length), BigInt(length), 'int'),
          ],
        })),
    ]);
  }

  time(depth: number): fc.Arbitrary<RefExpr> {
    const leaves = [this.columnOf(['time']), timeLiteralArbitrary];
    if (depth <= 0) return this.pick(leaves);
    return this.pick([
      ...leaves,
      ...leaves,
      fc
        .tuple(this.time(depth - 1), fc.integer({ min: -3, max: 3 }))
        .map(([a, seconds]): RefExpr => ({
          op: 'call',
          fn: 'ADD_SECONDS',
          kind: 'time',
          args: [a, literal(String(seconds), BigInt(seconds), 'int')],
        })),
    ]);
  }

  /** A column of these kinds most of the time, else `general`. */
  private biased(kinds: readonly Kind[], general: fc.Arbitrary<RefExpr>): fc.Arbitrary<RefExpr> {
    const column = this.columnOf(kinds);
    if (column === undefined) return general;
    return fc.oneof({ weight: 3, arbitrary: column }, { weight: 1, arbitrary: general });
  }

  /** A comparison of two values of like kinds. */
  private comparison(depth: number): fc.Arbitrary<RefExpr> {
    const ordering = fc.constantFrom('=', '<>', '<', '<=', '>', '>=') as fc.Arbitrary<
      '=' | '<>' | '<' | '<=' | '>' | '>='
    >;
    const equality = fc.constantFrom('=', '<>') as fc.Arbitrary<'=' | '<>'>;
    const make = (fn: '=' | '<>' | '<' | '<=' | '>' | '>=', a: RefExpr, b: RefExpr): RefExpr => ({
      op: 'compare',
      fn,
      a,
      b,
      kind: 'bool',
    });
    const bools = this.columnOf(['bool']);
    // One side is mostly a column, so that few comparisons are constant.
    const pair = (kinds: Kind[], general: fc.Arbitrary<RefExpr>) =>
      fc
        .tuple(this.biased(kinds, general), general, fc.boolean())
        .map(([a, b, swap]) => (swap ? ([b, a] as const) : ([a, b] as const)));
    return this.pick([
      fc
        .tuple(ordering, pair(['int', 'float', 'double'], this.numeric(depth)))
        .map(([fn, [a, b]]) => make(fn, a, b)),
      fc.tuple(ordering, pair(['time'], this.time(depth))).map(([fn, [a, b]]) => make(fn, a, b)),
      fc
        .tuple(equality, pair(['string'], this.string(depth)))
        .map(([fn, [a, b]]) => make(fn, a, b)),
      bools === undefined
        ? undefined
        : fc
            .tuple(equality, bools, fc.boolean())
            .map(([fn, a, value]) => make(fn, a, literal(value ? 'TRUE' : 'FALSE', value, 'bool'))),
    ]);
  }

  /** Conditions on the row key, which the planner turns into key ranges. */
  private keyCondition(): fc.Arbitrary<RefExpr> | undefined {
    if (this.schema.keyColumnCount !== 1) return undefined;
    const key: RefExpr = {
      op: 'column',
      name: this.names[0]!,
      index: 0,
      kind: this.schema.columns[0]!.kind,
    };
    const value =
      key.kind === 'time'
        ? timeLiteralArbitrary
        : key.kind === 'string'
          ? fc.constantFrom(...STRING_LITERALS)
          : fc.oneof(
              fc.integer({ min: -32, max: 32 }).map((k) => literal(String(k), BigInt(k), 'int')),
              fc.constantFrom(...INT_LITERALS, ...DOUBLE_LITERALS),
            );
    const operators =
      key.kind === 'string' ? (['=', '<>'] as const) : (['=', '<>', '<', '<=', '>', '>='] as const);
    const compare = fc
      .tuple(fc.constantFrom(...operators), value, fc.boolean())
      .map(([fn, v, flip]): RefExpr => {
        const mirrored = {
          '<': '>',
          '<=': '>=',
          '>': '<',
          '>=': '<=',
          '=': '=',
          '<>': '<>',
        } as const;
        return flip
          ? { op: 'compare', fn: mirrored[fn], a: v, b: key, kind: 'bool' }
          : { op: 'compare', fn, a: key, b: v, kind: 'bool' };
      });
    const range = fc
      .tuple(compare, compare)
      .map(([a, b]): RefExpr => ({ op: 'and', a, b, kind: 'bool' }));
    const list = fc
      .tuple(fc.array(value, { minLength: 1, maxLength: 4 }), fc.boolean())
      .map(([items, negated]): RefExpr => ({ op: 'in', a: key, items, negated, kind: 'bool' }));
    const between = fc
      .tuple(value, value, fc.boolean())
      .map(([low, high, negated]): RefExpr => ({
        op: 'between',
        a: key,
        low,
        high,
        negated,
        kind: 'bool',
      }));
    // Strings compare for equality only: no BETWEEN on a STRING key.
    return key.kind === 'string'
      ? fc.oneof(compare, range, list)
      : fc.oneof(compare, range, list, between);
  }

  /** A WHERE: often a key condition the planner can use, now and then a constant or NULL. */
  where(): fc.Arbitrary<RefExpr> {
    const key = this.keyCondition();
    const constants = fc.oneof(
      fc.constantFrom(
        literal('TRUE', true, 'bool'),
        literal('FALSE', false, 'bool'),
        nullOf('bool'),
      ),
      fc
        .tuple(fc.constantFrom('=', '<') as fc.Arbitrary<'=' | '<'>, this.numeric(0))
        .map(([fn, a]): RefExpr => ({ op: 'compare', fn, a, b: nullOf(a.kind), kind: 'bool' })),
    );
    const choices: Array<fc.WeightedArbitrary<RefExpr>> = [
      { weight: 4, arbitrary: this.condition(2) },
      { weight: 1, arbitrary: constants },
      // A surface against a box alone: every row or none, so a wrong answer always shows.
      { weight: 1, arbitrary: this.surfaceMeetsBox() },
    ];
    if (key !== undefined) {
      choices.push({ weight: 2, arbitrary: key });
      choices.push({
        weight: 3,
        arbitrary: fc
          .tuple(key, this.condition(1))
          .map(([a, b]): RefExpr => ({ op: 'and', a, b, kind: 'bool' })),
      });
    }
    return fc.oneof(...choices);
  }

  condition(depth: number): fc.Arbitrary<RefExpr> {
    const strings = this.columnOf(['string']);
    const key = this.keyCondition();
    const leaves = [
      this.comparison(Math.min(depth, 1)),
      this.surfaceMeetsBox(),
      this.columnOf(['geometry']) === undefined
        ? undefined
        : fc.tuple(this.geometry(), this.geometry()).map(([a, b]): RefExpr => ({
          op: 'call', fn: 'ST_MBRINTERSECTS', args: [a, b], kind: 'bool',
        })),
      this.columnOf(['geometry']) === undefined
        ? undefined
        : fc.tuple(this.geometry(), fc.constantFrom(-1n, 4326n, 3857n)).map(([a, srid]): RefExpr => ({
          op: 'compare', fn: '=', kind: 'bool',
          a: { op: 'call', fn: 'ST_GETSRID', args: [a], kind: 'int' },
          b: literal(String(srid), srid, 'int'),
        })),
      // Key conditions often: they are what the planner works on.
      key,
      key,
      key,
      this.columnOf(['bool']),
      fc
        .tuple(
          this.pick([
            ...this.columns(['bool', 'string', 'int', 'float', 'double', 'time', 'geometry']).map((c) =>
              fc.constant(c),
            ),
          ]),
          fc.boolean(),
        )
        .map(([a, negated]): RefExpr => ({ op: 'isNull', a, negated, kind: 'bool' })),
      strings === undefined
        ? undefined
        : fc
            .tuple(
              strings,
              fc.constantFrom('a%', '%b', '_', '%', '', 'a_', '%\u{1F600}%', "it''s", '__%'),
              fc.boolean(),
            )
            .map(([a, pattern, negated]): RefExpr => ({
              op: 'like',
              a,
              pattern: pattern.replaceAll("''", "'"),
              negated,
              kind: 'bool',
            })),
      fc
        .tuple(
          this.biased(['int'], this.integer(0)),
          fc.array(fc.oneof(fc.constantFrom(...INT_LITERALS), fc.constant(nullOf('int'))), {
            minLength: 1,
            maxLength: 4,
          }),
          fc.boolean(),
        )
        .map(([a, items, negated]): RefExpr => ({ op: 'in', a, items, negated, kind: 'bool' })),
      fc
        .tuple(
          this.biased(['int', 'float', 'double'], this.numeric(0)),
          this.numeric(0),
          this.numeric(0),
          fc.boolean(),
        )
        .map(([a, low, high, negated]): RefExpr => ({
          op: 'between',
          a,
          low,
          high,
          negated,
          kind: 'bool',
        })),
    ];
    if (depth <= 0) return this.pick(leaves);
    const sub = this.condition(depth - 1);
    return this.pick([
      ...leaves,
      ...leaves,
      fc
        .tuple(fc.constantFrom('and', 'or', 'xor') as fc.Arbitrary<'and' | 'or' | 'xor'>, sub, sub)
        .map(([op, a, b]): RefExpr => ({ op, a, b, kind: 'bool' })),
      sub.map((a): RefExpr => ({ op: 'not', a, kind: 'bool' })),
    ]);
  }
}

// ---- queries -----------------------------------------------------------------------------------

export interface ModelQuery {
  ref: RefQuery;
  text: string;
  /** Fetch options to run it with. */
  fetchSizeRows: number | undefined;
  partialExecution: boolean;
}

export function queryArbitrary(schema: ModelSchema): fc.Arbitrary<ModelQuery> {
  return fc.tuple(...schema.columns.map((column) => spelled(column.name))).chain((names) => {
    const expressions = new ExpressionArbitraries(schema, names);
    // GEOMETRY values have no order: never a sort key.
    const orderable = schema.columns.flatMap((column, index) =>
      (column.kind === 'geometry' ? [] : [index]));
    const orderKey = fc.record({
      index: orderable.length === 0 ? fc.constant(-1) : fc.constantFrom(...orderable),
      descending: fc.boolean(),
    });
    const aggregates = schema.columns.flatMap((column, index) => {
      const numeric = column.kind === 'int' || column.kind === 'float' || column.kind === 'double';
      const functions = [
        'COUNT',
        ...(numeric ? ['SUM', 'AVG', 'VARIANCE', 'STDDEV'] : []),
        ...(numeric || column.kind === 'time' ? ['MIN', 'MAX'] : []),
      ];
      return functions.map((fn) => ({ fn, index: index as number | undefined }));
    });
    return fc
      .record({
        where: fc.option(expressions.where(), { nil: undefined, freq: 5 }),
        orderBy: orderable.length === 0
          ? fc.constant<Array<{ index: number; descending: boolean }>>([])
          : fc.oneof(
            fc.constant<Array<{ index: number; descending: boolean }>>([]),
            fc.array(orderKey, { minLength: 1, maxLength: 3 }),
            fc.boolean().map((descending) => [{ index: orderable[0]!, descending }]),
          ),
        limit: fc.option(fc.integer({ min: 0, max: 30 }), { nil: undefined }),
        offset: fc.option(fc.integer({ min: 0, max: 10 }), { nil: undefined }),
        // One query in four aggregates.
        aggregate: fc.oneof(
          { weight: 3, arbitrary: fc.constant(undefined) },
          {
            weight: 1,
            arbitrary: fc.constantFrom({ fn: 'COUNT', index: undefined }, ...aggregates),
          },
        ),
        // Two queries in three on a time series call a time-series function; on others, fewer.
        timeSeries: fc.oneof(
          { weight: schema.keyKind === 'series' ? 1 : 6, arbitrary: fc.constant(undefined) },
          { weight: 2, arbitrary: timeSeriesCallArbitrary(schema, names) },
        ),
        // A time-series function sees the rows WHERE selects; without WHERE it sees them all.
        keepWhere: fc.boolean(),
        fetchSizeRows: fc.option(fc.integer({ min: 1, max: 40 }), { nil: undefined }),
        partialExecution: fc.boolean(),
      })
      .map((q): ModelQuery => {
        const offset = q.limit === undefined ? undefined : q.offset;
        const ref: RefQuery = {
          where: q.timeSeries !== undefined && !q.keepWhere ? undefined : q.where,
          orderBy: q.orderBy,
          limit: q.limit,
          offset,
          aggregate: q.timeSeries === undefined ? q.aggregate : undefined,
          ...(q.timeSeries === undefined ? {} : { timeSeries: q.timeSeries.ref }),
        };
        const select = q.timeSeries?.text;
        return {
          ref,
          text: queryText(ref, names, select),
          fetchSizeRows: q.fetchSizeRows,
          partialExecution: q.partialExecution,
        };
      });
  });
}

function queryText(ref: RefQuery, names: readonly string[], timeSeries?: string): string {
  const select =
    timeSeries !== undefined
      ? timeSeries
      : ref.aggregate === undefined
      ? '*'
      : `${ref.aggregate.fn}(${ref.aggregate.index === undefined ? '*' : `"${names[ref.aggregate.index]}"`})`;
  let text = `SELECT ${select}`;
  if (ref.where !== undefined) text += ` WHERE ${textOf(ref.where)}`;
  if (ref.orderBy.length > 0) {
    text += ` ORDER BY ${ref.orderBy.map((key) => `"${names[key.index]}" ${key.descending ? 'DESC' : 'ASC'}`).join(', ')}`;
  }
  if (ref.limit !== undefined) text += ` LIMIT ${ref.limit}`;
  if (ref.offset !== undefined) text += ` OFFSET ${ref.offset}`;
  return text;
}
