// A reference for TQL, written apart from lib/query and as plainly as possible: a tiny expression
// tree (what the generator builds), its TQL text, its value on a row, and a whole query (filter,
// stable sort, offset and limit, or one aggregate) evaluated over every row of a container.
//
// Values here: every integer (INTEGER, LONG, TIMESTAMP ms, integer literals) is a bigint; DOUBLE and
// FLOAT are numbers; NULL is null; a GEOMETRY is its WKT text, read here by a few regular
// expressions for its box and SRID (nothing of lib/geometry). No planner, no paging, no cleverness:
// the engine's answer must equal this one.

import type { Row, Value } from '../../lib/schema/column-type.ts';
import { refTimeSeries, type RefTimeSeries } from './tql-reference-time-series.ts';

export type Kind = 'bool' | 'string' | 'int' | 'float' | 'double' | 'time' | 'geometry';
export type RefValue = boolean | string | bigint | number | null;

export type RefExpr =
  | { op: 'column'; name: string; index: number; kind: Kind }
  | { op: 'literal'; text: string; value: RefValue; kind: Kind }
  | { op: 'arith'; fn: '+' | '-' | '*' | '/' | '%'; a: RefExpr; b: RefExpr; kind: Kind }
  | { op: 'negate'; a: RefExpr; kind: Kind }
  | {
      op: 'compare';
      fn: '=' | '<>' | '<' | '<=' | '>' | '>=';
      a: RefExpr;
      b: RefExpr;
      kind: 'bool';
    }
  | { op: 'and' | 'or' | 'xor'; a: RefExpr; b: RefExpr; kind: 'bool' }
  | { op: 'not'; a: RefExpr; kind: 'bool' }
  | { op: 'isNull'; a: RefExpr; negated: boolean; kind: 'bool' }
  | { op: 'like'; a: RefExpr; pattern: string; negated: boolean; kind: 'bool' }
  | { op: 'in'; a: RefExpr; items: RefExpr[]; negated: boolean; kind: 'bool' }
  | { op: 'between'; a: RefExpr; low: RefExpr; high: RefExpr; negated: boolean; kind: 'bool' }
  | {
      op: 'call';
      fn:
        | 'CHAR_LENGTH' | 'UPPER' | 'LOWER' | 'CONCAT' | 'SUBSTRING' | 'ROUND' | 'ADD_SECONDS'
        | 'ST_GEOMFROMTEXT' | 'ST_MAKERECT' | 'ST_MBRINTERSECTS' | 'ST_GETSRID' | 'ST_MAKEBOX'
        | 'ST_MAKEPLANE' | 'ST_MAKESPHERE' | 'ST_MAKECYLINDER' | 'ST_MAKECONE' | 'ST_MAKEQSF'
        | 'ST_QSFMBRINTERSECTS';
      args: RefExpr[];
      kind: Kind;
    };

// ---- text --------------------------------------------------------------------------------------

export function textOf(e: RefExpr): string {
  switch (e.op) {
    case 'column':
      return `"${e.name}"`;
    case 'literal':
      return e.text;
    case 'arith':
      return `(${textOf(e.a)} ${e.fn} ${textOf(e.b)})`;
    case 'negate':
      return `(-(${textOf(e.a)}))`;
    case 'compare':
      return `(${textOf(e.a)} ${e.fn} ${textOf(e.b)})`;
    case 'and':
    case 'or':
    case 'xor':
      return `(${textOf(e.a)} ${e.op.toUpperCase()} ${textOf(e.b)})`;
    case 'not':
      return `(NOT ${textOf(e.a)})`;
    case 'isNull':
      return `(${textOf(e.a)} IS ${e.negated ? 'NOT ' : ''}NULL)`;
    case 'like':
      return `(${textOf(e.a)} ${e.negated ? 'NOT ' : ''}LIKE '${e.pattern.replaceAll("'", "''")}')`;
    case 'in':
      return `(${textOf(e.a)} ${e.negated ? 'NOT ' : ''}IN (${e.items.map(textOf).join(', ')}))`;
    case 'between':
      return `(${textOf(e.a)} ${e.negated ? 'NOT ' : ''}BETWEEN ${textOf(e.low)} AND ${textOf(e.high)})`;
    case 'call':
      if (e.fn === 'ADD_SECONDS')
        return `TIMESTAMPADD(SECOND, ${textOf(e.args[0]!)}, ${textOf(e.args[1]!)})`;
      if (e.fn === 'ST_GEOMFROMTEXT') return `ST_GeomFromText(${textOf(e.args[0]!)})`;
      if (e.fn === 'ST_QSFMBRINTERSECTS' || e.fn === 'ST_MAKEQSF') {
        const name = e.fn === 'ST_MAKEQSF' ? 'ST_MakeQSF' : 'ST_QSFMBRIntersects';
        return `${name}(${e.args.map(textOf).join(', ')})`;
      }
      return `${e.fn}(${e.args.map(textOf).join(', ')})`;
  }
}

// ---- values ------------------------------------------------------------------------------------

/** A stored value in the reference's terms. */
export function refValue(value: Value, kind: Kind): RefValue {
  if (value === null) return null;
  if (kind === 'int' || kind === 'time') return BigInt(value as number | bigint);
  return value as RefValue;
}

const wrap = (value: bigint) => BigInt.asIntN(64, value);

/** -1, 0, 1 with GridDB's rules: NaN equals NaN and is above every number. */
export function refCompare(a: RefValue, b: RefValue): number {
  if (typeof a === 'boolean' || typeof a === 'string')
    return a === b ? 0 : a < (b as typeof a) ? -1 : 1;
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b ? 0 : a < b ? -1 : 1;
  const x = Number(a);
  const y = Number(b);
  if (Number.isNaN(x) || Number.isNaN(y))
    return Number.isNaN(x) && Number.isNaN(y) ? 0 : Number.isNaN(x) ? 1 : -1;
  return x === y ? 0 : x < y ? -1 : 1;
}

function likeRegExp(pattern: string): RegExp {
  let source = '';
  for (const character of pattern) {
    if (character === '%') source += '[\\s\\S]*';
    else if (character === '_') source += '.';
    else source += character.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'su');
}

function asciiCase(text: string, upper: boolean): string {
  let out = '';
  for (const character of text) {
    const code = character.charCodeAt(0);
    if (upper && code >= 97 && code <= 122) out += String.fromCharCode(code - 32);
    else if (!upper && code >= 65 && code <= 90) out += String.fromCharCode(code + 32);
    else out += character;
  }
  return out;
}

function roundHalfAway(x: number): number {
  if (x === 0 || !Number.isFinite(x) || Number.isInteger(x)) return x;
  if (x < 0) {
    const r = -roundHalfAway(-x);
    return r === 0 ? 0 : r;
  }
  const whole = Math.floor(x);
  return x - whole >= 0.5 ? whole + 1 : whole;
}

function compareHolds(fn: '=' | '<>' | '<' | '<=' | '>' | '>=', order: number): boolean {
  switch (fn) {
    case '=':
      return order === 0;
    case '<>':
      return order !== 0;
    case '<':
      return order < 0;
    case '<=':
      return order <= 0;
    case '>':
      return order > 0;
    case '>=':
      return order >= 0;
  }
}

export function refEval(e: RefExpr, row: Row, kinds: readonly Kind[]): RefValue {
  switch (e.op) {
    case 'column':
      return refValue(row[e.index] ?? null, kinds[e.index]!);
    case 'literal':
      return e.value;
    case 'arith': {
      const a = refEval(e.a, row, kinds);
      const b = refEval(e.b, row, kinds);
      if (a === null || b === null) return null;
      if (e.kind === 'int') {
        const x = a as bigint;
        const y = b as bigint;
        switch (e.fn) {
          case '+':
            return wrap(x + y);
          case '-':
            return wrap(x - y);
          case '*':
            return wrap(x * y);
          case '/':
            return wrap(x / y);
          case '%':
            return wrap(x % y);
        }
      }
      const x = Number(a);
      const y = Number(b);
      const r = e.fn === '+' ? x + y : e.fn === '-' ? x - y : e.fn === '*' ? x * y : x / y;
      return e.kind === 'float' ? Math.fround(r) : r;
    }
    case 'negate': {
      const a = refEval(e.a, row, kinds);
      if (a === null) return null;
      return typeof a === 'bigint' ? wrap(-a) : -(a as number);
    }
    case 'compare': {
      const a = refEval(e.a, row, kinds);
      const b = refEval(e.b, row, kinds);
      if (a === null || b === null) return null;
      return compareHolds(e.fn, refCompare(a, b));
    }
    case 'and': {
      const a = refEval(e.a, row, kinds);
      if (a === false) return false;
      const b = refEval(e.b, row, kinds);
      if (b === false) return false;
      return a === null || b === null ? null : true;
    }
    case 'or': {
      const a = refEval(e.a, row, kinds);
      if (a === true) return true;
      const b = refEval(e.b, row, kinds);
      if (b === true) return true;
      return a === null || b === null ? null : false;
    }
    case 'xor': {
      const a = refEval(e.a, row, kinds);
      const b = refEval(e.b, row, kinds);
      return a === null || b === null ? null : a !== b;
    }
    case 'not': {
      const a = refEval(e.a, row, kinds);
      return a === null ? null : !a;
    }
    case 'isNull':
      return (refEval(e.a, row, kinds) === null) !== e.negated;
    case 'like': {
      const a = refEval(e.a, row, kinds);
      if (a === null) return null;
      const matched = e.pattern !== '' && likeRegExp(e.pattern).test(a as string);
      return matched !== e.negated;
    }
    case 'in': {
      const a = refEval(e.a, row, kinds);
      if (a === null) return null;
      let sawNull = false;
      for (const item of e.items) {
        const value = refEval(item, row, kinds);
        if (value === null) sawNull = true;
        else if (refCompare(a, value) === 0) return !e.negated;
      }
      return sawNull ? null : e.negated;
    }
    case 'between': {
      const a = refEval(e.a, row, kinds);
      const low = refEval(e.low, row, kinds);
      const high = refEval(e.high, row, kinds);
      const atLeast = a === null || low === null ? null : refCompare(a, low) >= 0;
      const atMost = a === null || high === null ? null : refCompare(a, high) <= 0;
      const both =
        atLeast === false || atMost === false
          ? false
          : atLeast === null || atMost === null
            ? null
            : true;
      return both === null ? null : both !== e.negated;
    }
    case 'call': {
      const args = e.args.map((arg) => refEval(arg, row, kinds));
      if (e.fn === 'CONCAT') return args.filter((arg) => arg !== null).join('');
      if (args.includes(null)) return null;
      switch (e.fn) {
        case 'CHAR_LENGTH':
          return BigInt(Array.from(args[0] as string).length);
        case 'UPPER':
          return asciiCase(args[0] as string, true);
        case 'LOWER':
          return asciiCase(args[0] as string, false);
        case 'SUBSTRING': {
          const start = Number(args[1]);
          const length = Number(args[2]);
          return Array.from(args[0] as string)
            .slice(start - 1, start - 1 + length)
            .join('');
        }
        case 'ROUND':
          return roundHalfAway(Number(args[0]));
        case 'ADD_SECONDS':
          return (args[0] as bigint) + (args[1] as bigint) * 1000n;
        case 'ST_GEOMFROMTEXT':
          return args[0] as string;
        case 'ST_MAKERECT': {
          const [x1, y1, x2, y2] = corners(args) as [number, number, number, number];
          return `POLYGON((${x1} ${y1},${x2} ${y1},${x2} ${y2},${x1} ${y2},${x1} ${y1}))`;
        }
        case 'ST_MBRINTERSECTS':
          return boxesMeet(args[0] as string, args[1] as string);
        case 'ST_MAKEBOX': {
          // Only its box matters here (it is never a result value): its two corners.
          const n = corners(args);
          return `BOX((${n.slice(0, 3).join(' ')},${n.slice(3, 6).join(' ')}))`;
        }
        case 'ST_MAKEPLANE':
        case 'ST_MAKESPHERE':
        case 'ST_MAKECYLINDER':
        case 'ST_MAKECONE':
        case 'ST_MAKEQSF':
          return qsfText(e.fn, args.map(Number));
        case 'ST_QSFMBRINTERSECTS':
          return surfaceMeetsBox(args[0] as string, args[1] as string);
        case 'ST_GETSRID': {
          const srid = /;\s*(-?\d+)\s*\)\s*$/.exec(args[0] as string);
          return srid === null ? -1n : BigInt(srid[1]!);
        }
      }
    }
  }
  return null;
}

// ---- geometry ----------------------------------------------------------------------------------

/** [low, high] on x, y and z; a 2-D geometry spans all of z. Undefined: empty. */
function boxOf(wkt: string): Array<[number, number]> | undefined {
  if (/EMPTY/i.test(wkt)) return undefined;
  const body = wkt.slice(wkt.indexOf('(')).replace(/;\s*-?\d+\s*\)\s*$/, ')');
  const first = /\(\s*([^(),]+?)\s*[,)]/.exec(body)![1]!;
  const dimension = first.split(/\s+/).length;
  const numbers = body.match(/[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?/g)!.map(Number);
  const box: Array<[number, number]> = [[Infinity, -Infinity], [Infinity, -Infinity],
    [-Infinity, Infinity]];
  if (dimension === 3) box[2] = [Infinity, -Infinity];
  for (let i = 0; i < numbers.length; i++) {
    const axis = box[i % dimension]!;
    axis[0] = Math.min(axis[0], numbers[i]!);
    axis[1] = Math.max(axis[1], numbers[i]!);
  }
  return box;
}

/** ST_MBRIntersects: boxes meet on every axis (touching counts); empty meets nothing. */
function boxesMeet(a: string, b: string): boolean {
  const p = boxOf(a);
  const q = boxOf(b);
  if (p === undefined || q === undefined) return false;
  return p.every(([low, high], axis) => low <= q[axis]![1] && q[axis]![0] <= high);
}

/** The numbers of ST_MakeRect and ST_MakeBox: given, or the coordinates of two POINTs. */
function corners(args: RefValue[]): number[] {
  if (args.length !== 2) return args.map(Number);
  return args.flatMap((wkt) => /\(([^)]*)\)/.exec(wkt as string)![1]!.trim().split(/\s+/)
    .map(Number));
}

// Quadratic surfaces, only of the separable kind the generator makes: f(X) = Σ a_i x_i² + b_i x_i
// + c (no cross terms; a cylinder's and a cone's axis along x, y or z), as the text
// `QSF(a0 a1 a2 b0 b1 b2 c)`.

function qsfText(fn: string, n: number[]): string {
  let a: number[];
  const p = n.slice(0, 3);
  let k = 0;
  switch (fn) {
    case 'ST_MAKEPLANE': {
      const v = n.slice(3, 6);
      return `QSF(0 0 0 ${v.join(' ')} ${-(v[0]! * p[0]! + v[1]! * p[1]! + v[2]! * p[2]!)})`;
    }
    case 'ST_MAKESPHERE':
      a = [1, 1, 1];
      k = -n[3]! * n[3]!;
      break;
    case 'ST_MAKECYLINDER':
      a = n.slice(3, 6).map((v) => (v === 0 ? 1 : 0));
      k = -n[6]! * n[6]!;
      break;
    case 'ST_MAKECONE': {
      // <u, X − p0>² − cos²θ |X − p0|² with u along one axis.
      const cos = Math.cos(((n[6]! % 360) * Math.PI) / 180);
      a = n.slice(3, 6).map((v) => (v === 0 ? 0 : 1) - cos * cos);
      break;
    }
    default: {
      const matrix = n.slice(0, 9);
      if (matrix.some((x, i) => i % 4 !== 0 && x !== 0)) throw new Error('no reference: cross terms');
      return `QSF(${[matrix[0], matrix[4], matrix[8], ...n.slice(9, 13)].join(' ')})`;
    }
  }
  // Σ a_i (x_i − p_i)² + k expanded.
  const b = a.map((ai, i) => -2 * ai * p[i]!);
  const c = a.reduce((sum, ai, i) => sum + ai * p[i]! * p[i]!, k);
  return `QSF(${[...a, ...b, c].join(' ')})`;
}

/** ST_QSFMBRIntersects: f's least and greatest values over the box bracket 0, axis by axis. */
function surfaceMeetsBox(qsf: string, geometry: string): boolean {
  const [a0, a1, a2, b0, b1, b2, c] = qsf.slice(4, -1).split(' ').map(Number) as number[];
  const a = [a0!, a1!, a2!];
  const b = [b0!, b1!, b2!];
  if (a.every((x) => x === 0) && b.every((x) => x === 0)) return false;
  const box = boxOf(geometry);
  if (box === undefined) return false;
  let low = c!;
  let high = c!;
  for (let i = 0; i < 3; i++) {
    const [from, to] = box[i]!;
    const candidates = [from, to];
    const vertex = a[i] === 0 ? undefined : -b[i]! / (2 * a[i]!);
    if (vertex !== undefined && vertex > from && vertex < to) candidates.push(vertex);
    const values = candidates.map((x) => a[i]! * x * x + b[i]! * x);
    low += Math.min(...values);
    high += Math.max(...values);
  }
  return low <= 0 && high >= 0;
}

// ---- whole queries -----------------------------------------------------------------------------

export interface RefOrderKey {
  index: number;
  descending: boolean;
}

export interface RefQuery {
  where: RefExpr | undefined;
  orderBy: RefOrderKey[];
  limit: number | undefined;
  offset: number | undefined;
  aggregate: { fn: string; index: number | undefined } | undefined;
  /** A time-series function of the select list instead of `*` or an aggregate. */
  timeSeries?: RefTimeSeries;
}

export type RefAnswer =
  | { kind: 'rows'; rows: Row[] }
  | { kind: 'aggregate'; value: number | bigint | null }
  | { kind: 'error'; code: string };

/** `rows` in row-key order (keyless: insertion order). */
export function refAnswer(
  query: RefQuery,
  rows: readonly Row[],
  kinds: readonly Kind[],
): RefAnswer {
  let selected = rows.filter(
    (row) => query.where === undefined || refEval(query.where, row, kinds) === true,
  );
  if (query.timeSeries !== undefined) {
    const answer = refTimeSeries(query.timeSeries, selected, kinds);
    if (answer.kind !== 'rows') {
      if (answer.kind === 'aggregate' && (query.limit === 0 || (query.offset ?? 0) > 0))
        return { kind: 'aggregate', value: null };
      return answer;
    }
    selected = answer.rows;
  } else if (query.aggregate !== undefined) {
    const result = refAggregate(query.aggregate, selected, kinds);
    if (result.kind === 'aggregate' && (query.limit === 0 || (query.offset ?? 0) > 0)) {
      return { kind: 'aggregate', value: null };
    }
    return result;
  }
  if (query.orderBy.length > 0) {
    selected = [...selected].sort((x, y) => {
      for (const key of query.orderBy) {
        const a = refValue(x[key.index] ?? null, kinds[key.index]!);
        const b = refValue(y[key.index] ?? null, kinds[key.index]!);
        let order: number;
        if (a === null || b === null) order = a === b ? 0 : a === null ? 1 : -1;
        else order = refCompare(a, b);
        if (order !== 0) return key.descending ? -order : order;
      }
      return 0;
    });
  }
  const offset = query.offset ?? 0;
  const end = query.limit === undefined ? undefined : offset + query.limit;
  return { kind: 'rows', rows: selected.slice(offset, end) };
}

function refAggregate(
  aggregate: { fn: string; index: number | undefined },
  rows: readonly Row[],
  kinds: readonly Kind[],
): RefAnswer {
  if (aggregate.index === undefined) return { kind: 'aggregate', value: BigInt(rows.length) };
  const kind = kinds[aggregate.index]!;
  const values = rows
    .map((row) => refValue(row[aggregate.index!] ?? null, kind))
    .filter((v) => v !== null);
  if (aggregate.fn === 'COUNT') return { kind: 'aggregate', value: BigInt(values.length) };
  if (values.length === 0) return { kind: 'aggregate', value: null };
  const numbers = values.map(Number);
  switch (aggregate.fn) {
    case 'SUM': {
      if (kind === 'int') {
        const sum = (values as bigint[]).reduce((x, y) => x + y, 0n);
        if (sum !== BigInt.asIntN(64, sum)) return { kind: 'error', code: 'VALUE_OUT_OF_RANGE' };
        return { kind: 'aggregate', value: sum };
      }
      return { kind: 'aggregate', value: numbers.reduce((x, y) => x + y, 0) };
    }
    case 'AVG': {
      if (kind === 'int')
        return {
          kind: 'aggregate',
          value: Number((values as bigint[]).reduce((x, y) => x + y, 0n)) / values.length,
        };
      return { kind: 'aggregate', value: numbers.reduce((x, y) => x + y, 0) / values.length };
    }
    case 'MIN':
    case 'MAX': {
      let best = values[0]!;
      for (const value of values) {
        const order = refCompare(value, best);
        if (aggregate.fn === 'MIN' ? order < 0 : order > 0) best = value;
      }
      // Back to the stored shape: LONG and TIMESTAMP ms as stored, INTEGER as a number.
      return { kind: 'aggregate', value: best as number | bigint };
    }
    case 'VARIANCE':
    case 'STDDEV': {
      // Two passes around the first value: equal values give exactly 0, as they must (a plain
      // sum / n of 1e300s is off by an ulp, and that ulp squared and scaled overflows).
      const shift = numbers[0]!;
      const mean = shift + numbers.reduce((sum, x) => sum + (x - shift), 0) / numbers.length;
      const squares = numbers.reduce((sum, x) => sum + (x - mean) ** 2, 0);
      const variance = numbers.length === 1 ? 0 : squares / (numbers.length - 1);
      return {
        kind: 'aggregate',
        value: aggregate.fn === 'VARIANCE' ? variance : Math.sqrt(variance),
      };
    }
  }
  throw new Error(`no reference for ${aggregate.fn}`);
}
