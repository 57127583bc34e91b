// The WKT reader for GEOMETRY values, as GridDB accepts them (surface.md §3.4, §4.2):
//
//   POINT(x y [z])                      LINESTRING(x y [z], x y [z], ...)      (2 or more points)
//   POLYGON((ring), (ring), ...)        ring: closed, 4 or more points, first = last
//   POLYHEDRALSURFACE(((ring), ...), ((ring), ...), ...)                       (3-D polygons)
//   QUADRATICSURFACE(A00 A01 A02 A10 A11 A12 A20 A21 A22 B0 B1 B2 c)
//   KIND(EMPTY)  (also the OGC spelling KIND EMPTY)      ;srid before the closing parenthesis
//
// Kinds and EMPTY are case-insensitive; blanks may stand between any two tokens. Coordinates are
// decimal numbers; NaN and ±INF (spelled or by overflow) are refused, as in GridDB. A geometry is
// 2-D or 3-D throughout. No library reads POLYHEDRALSURFACE or QUADRATICSURFACE, hence this one.
// A problem is returned, not thrown: the row validator and TQL each wrap it in their own error.

import {
  GEOMETRY_PART_COUNT_MAX, GEOMETRY_PART_POINT_COUNT_MAX,
} from '../base/limits.ts';
import {
  GEOMETRY_KINDS, SRID_NONE, type Geometry, type GeometryKind, type Position,
} from './geometry.ts';

export interface WktProblem {
  readonly problem: string;
}

const NUMBER = /[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD = /[A-Za-z_]+/y;
const BLANK = /\s*/y;
const INTEGER = /^[+-]?\d+$/;
const SRID_MIN = -(2 ** 31);
const SRID_MAX = 2 ** 31 - 1;
const QUADRATIC_COEFFICIENT_COUNT = 13;

class WktSyntax extends Error {}

/** Parses one WKT text; a problem says what is wrong and at which character. */
export function parseWkt(text: string): Geometry | WktProblem {
  try {
    return new Reader(text).geometry();
  } catch (error) {
    if (error instanceof WktSyntax) return { problem: error.message };
    throw error;
  }
}

export function isWktProblem(value: Geometry | WktProblem): value is WktProblem {
  return 'problem' in value;
}

class Reader {
  private at = 0;
  private dimension: 0 | 2 | 3 = 0;

  constructor(private readonly text: string) {}

  geometry(): Geometry {
    this.skipBlank();
    const kindAt = this.at;
    const kind = this.word()?.toUpperCase() as GeometryKind | undefined;
    if (kind === undefined || !GEOMETRY_KINDS.includes(kind)) {
      this.failAt(kindAt, `a geometry kind (${GEOMETRY_KINDS.join(', ')})`);
    }
    let srid = SRID_NONE;
    let geometry: Geometry;
    if (this.peekWord('EMPTY')) {
      this.word();
      geometry = emptyOf(kind, srid);
    } else {
      this.expect('(');
      if (this.peekWord('EMPTY')) {
        this.word();
        geometry = emptyOf(kind, SRID_NONE);
      } else {
        geometry = this.body(kind);
      }
      srid = this.srid();
      this.expect(')');
      geometry = { ...geometry, srid };
    }
    this.skipBlank();
    if (this.at < this.text.length) this.fail('the end of the text');
    return geometry;
  }

  private body(kind: GeometryKind): Geometry {
    const srid = SRID_NONE;
    switch (kind) {
      case 'POINT':
        return { kind, srid, positions: [this.position()], dimension: this.dimension };
      case 'LINESTRING': {
        const positions = this.positions();
        if (positions.length < 2) this.fail('a second point (a LINESTRING has 2 or more)');
        return { kind, srid, positions, dimension: this.dimension };
      }
      case 'POLYGON':
        return { kind, srid, rings: this.rings(), dimension: this.dimension };
      case 'POLYHEDRALSURFACE': {
        const polygons = this.list(() => {
          this.expect('(');
          const rings = this.rings();
          this.expect(')');
          return rings;
        }, GEOMETRY_PART_COUNT_MAX);
        if (this.dimension !== 3) this.fail('3-D coordinates (a POLYHEDRALSURFACE is 3-D)');
        return { kind, srid, polygons, dimension: 3 };
      }
      case 'QUADRATICSURFACE': {
        const coefficients: number[] = [];
        while (coefficients.length < QUADRATIC_COEFFICIENT_COUNT) coefficients.push(this.number());
        return { kind, srid, coefficients, dimension: 3 };
      }
    }
  }

  private rings(): Position[][] {
    return this.list(() => {
      this.expect('(');
      const ringAt = this.at;
      const ring = this.positions();
      this.expect(')');
      if (ring.length < 4) this.failAt(ringAt, 'a ring of 4 or more points');
      if (!ring[0]!.every((c, i) => c === ring[ring.length - 1]![i])) {
        this.failAt(ringAt, 'a closed ring (its last point equal to its first)');
      }
      return ring;
    }, GEOMETRY_PART_COUNT_MAX);
  }

  private positions(): Position[] {
    return this.list(() => this.position(), GEOMETRY_PART_POINT_COUNT_MAX);
  }

  private list<T>(item: () => T, countMax: number): T[] {
    const items = [item()];
    while (this.peek(',')) {
      this.expect(',');
      if (items.length === countMax) this.fail(`at most ${countMax} items here`);
      items.push(item());
    }
    return items;
  }

  private position(): Position {
    const positionAt = this.at;
    const position = [this.number(), this.number()];
    this.skipBlank();
    NUMBER.lastIndex = this.at;
    if (NUMBER.test(this.text) || this.peekWord()) position.push(this.number());
    const dimension = position.length as 2 | 3;
    if (this.dimension !== 0 && this.dimension !== dimension) {
      this.failAt(positionAt, `${this.dimension} coordinates (every point of a geometry has ` +
        'as many)');
    }
    this.dimension = dimension;
    return position;
  }

  private number(): number {
    this.skipBlank();
    const start = this.at;
    const word = this.word();
    if (word !== undefined) {
      const nonFinite = /^(nan|inf|infinity)$/i.test(word);
      this.failAt(start, nonFinite ? 'a finite coordinate (NaN and INF are not allowed)'
        : 'a number');
    }
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null) this.fail('a number');
    this.at = NUMBER.lastIndex;
    const value = Number(match[0]);
    if (!Number.isFinite(value)) {
      this.failAt(start, 'a finite coordinate (NaN and INF are not allowed)');
    }
    return value;
  }

  private srid(): number {
    if (!this.peek(';')) return SRID_NONE;
    this.expect(';');
    this.skipBlank();
    const start = this.at;
    NUMBER.lastIndex = this.at;
    const match = NUMBER.exec(this.text);
    if (match === null || !INTEGER.test(match[0])) this.failAt(start, 'an integer SRID');
    this.at = NUMBER.lastIndex;
    const srid = Number(match[0]);
    if (srid < SRID_MIN || srid > SRID_MAX) this.failAt(start, 'an SRID within 32 bits');
    return srid;
  }

  private word(): string | undefined {
    this.skipBlank();
    WORD.lastIndex = this.at;
    const match = WORD.exec(this.text);
    if (match === null) return undefined;
    this.at = WORD.lastIndex;
    return match[0];
  }

  private peekWord(expected?: string): boolean {
    this.skipBlank();
    WORD.lastIndex = this.at;
    const match = WORD.exec(this.text);
    if (match === null) return false;
    return expected === undefined || match[0].toUpperCase() === expected;
  }

  private peek(char: string): boolean {
    this.skipBlank();
    return this.text[this.at] === char;
  }

  private expect(char: string): void {
    if (!this.peek(char)) this.fail(`'${char}'`);
    this.at++;
  }

  private skipBlank(): void {
    BLANK.lastIndex = this.at;
    BLANK.exec(this.text);
    this.at = BLANK.lastIndex;
  }

  private fail(expected: string): never {
    this.skipBlank();
    this.failAt(this.at, expected);
  }

  private failAt(at: number, expected: string): never {
    const found = at >= this.text.length ? 'the end' : `'${this.text.slice(at, at + 12)}'`;
    throw new WktSyntax(`invalid WKT at character ${at + 1}: expected ${expected}, found ${found}`);
  }
}

function emptyOf(kind: GeometryKind, srid: number): Geometry {
  switch (kind) {
    case 'POINT': case 'LINESTRING': return { kind, srid, positions: [], dimension: 0 };
    case 'POLYGON': return { kind, srid, rings: [], dimension: 0 };
    case 'POLYHEDRALSURFACE': return { kind, srid, polygons: [], dimension: 0 };
    case 'QUADRATICSURFACE': return { kind, srid, coefficients: [], dimension: 0 };
  }
}
