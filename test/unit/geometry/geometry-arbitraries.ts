// Random geometries of every kind for the property tests: 2-D and 3-D, EMPTY, with and without an
// SRID, coordinates from small integers to the extremes of a double (-0, subnormals, ±MAX_VALUE),
// closed rings, POLYHEDRALSURFACEs (3-D), QUADRATICSURFACEs. Given as the WKT GridDB prints.

import fc from 'fast-check';
import { GEOMETRY_KINDS, type Geometry, type GeometryKind } from '../../../lib/geometry/geometry.ts';
import { printWkt } from '../../../lib/geometry/wkt-print.ts';

const coordinate: fc.Arbitrary<number> = fc.oneof(
  { weight: 3, arbitrary: fc.integer({ min: -50, max: 50 }).map((n) => n / 2) },
  { weight: 2, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true }) },
  { weight: 1, arbitrary: fc.constantFrom(-0, 5e-324, -Number.MAX_VALUE, Number.MAX_VALUE, 1e21) },
);

const srid = fc.oneof(fc.constant(-1), fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }));

const position = (dimension: 2 | 3) => fc.array(coordinate, { minLength: dimension, maxLength: dimension });

const ring = (dimension: 2 | 3) => fc.array(position(dimension), { minLength: 3, maxLength: 6 })
  .map((points) => [...points, points[0]!]);

const rings = (dimension: 2 | 3) => fc.array(ring(dimension), { minLength: 1, maxLength: 3 });

function bodyOf(kind: GeometryKind, dimension: 2 | 3, sridValue: number): fc.Arbitrary<Geometry> {
  switch (kind) {
    case 'POINT': return position(dimension)
      .map((p) => ({ kind, srid: sridValue, dimension, positions: [p] }));
    case 'LINESTRING': return fc.array(position(dimension), { minLength: 2, maxLength: 8 })
      .map((positions) => ({ kind, srid: sridValue, dimension, positions }));
    case 'POLYGON': return rings(dimension)
      .map((list) => ({ kind, srid: sridValue, dimension, rings: list }));
    case 'POLYHEDRALSURFACE': return fc.array(rings(3), { minLength: 1, maxLength: 3 })
      .map((polygons) => ({ kind, srid: sridValue, dimension: 3 as const, polygons }));
    case 'QUADRATICSURFACE': return fc.array(coordinate, { minLength: 13, maxLength: 13 })
      .map((coefficients) => ({ kind, srid: -1, dimension: 3 as const, coefficients }));
  }
}

function emptyOf(kind: GeometryKind, sridValue: number): Geometry {
  switch (kind) {
    case 'POINT': case 'LINESTRING': return { kind, srid: sridValue, dimension: 0, positions: [] };
    case 'POLYGON': return { kind, srid: sridValue, dimension: 0, rings: [] };
    case 'POLYHEDRALSURFACE': return { kind, srid: sridValue, dimension: 0, polygons: [] };
    case 'QUADRATICSURFACE': return { kind, srid: -1, dimension: 0, coefficients: [] };
  }
}

/** A geometry of any kind, as a parsed Geometry would be. */
export const geometryArbitrary: fc.Arbitrary<Geometry> = fc.tuple(
  fc.constantFrom(...GEOMETRY_KINDS), fc.constantFrom(2 as const, 3 as const), srid,
  fc.integer({ min: 0, max: 9 }),
).chain(([kind, dimension, sridValue, emptyDie]) => (emptyDie === 0
  ? fc.constant(emptyOf(kind, sridValue)) : bodyOf(kind, dimension, sridValue)));

/** The WKT of a geometry of any kind, as GridDB prints it. */
export const wktArbitrary: fc.Arbitrary<string> = geometryArbitrary.map(printWkt);
