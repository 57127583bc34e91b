// The spatial functions on rows holding the binary GEOMETRY form answer as they did on WKT text:
// for random geometries of every kind, ST_MBRIntersects (both argument orders), ST_GetSrId and
// ST_QSFMBRIntersects give the value, or the error, that the WKT-era evaluation gives, computed
// here from the parsed text alone (parseWkt, geometryMbr, mbrIntersects, the surface test), the
// way the functions read their arguments before the binary form. A row holding the WKT text
// itself (a row block written before the binary form keeps it) answers the same.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError } from '../../../lib/base/errors.ts';
import { geometryMbr, mbrIntersects, type Geometry } from '../../../lib/geometry/geometry.ts';
import { geometryValueOf } from '../../../lib/geometry/geometry-value.ts';
import { makeSphere, quadraticSurfaceMeetsBox } from '../../../lib/geometry/quadratic-surface.ts';
import { isWktProblem, parseWkt } from '../../../lib/geometry/wkt-parse.ts';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import type { Row, Value } from '../../../lib/schema/column-type.ts';
import { wktArbitrary } from '../geometry/geometry-arbitraries.ts';
import { valueOf } from './tql-test-helpers.ts';

const GEO: ContainerSchema = {
  name: 'geo', type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
  columns: [
    { name: 'id', type: 'INTEGER', array: false, notNull: true },
    { name: 'g', type: 'GEOMETRY', array: false, notNull: false },
  ],
};

type Outcome = { value: unknown } | { error: string };

function outcome(run: () => unknown): Outcome {
  try {
    return { value: run() };
  } catch (error) {
    if (error instanceof StorageError) return { error: error.code };
    if (typeof error === 'string') return { error };
    throw error;
  }
}

function parsed(wkt: string): Geometry {
  const geometry = parseWkt(wkt);
  assert.ok(!isWktProblem(geometry));
  return geometry;
}

/** ST_MBRIntersects as read from WKT: a QUADRATICSURFACE is an error, an empty box FALSE. */
function mbrIntersectsOfText(a: string, b: string): unknown {
  const [ga, gb] = [parsed(a), parsed(b)];
  if (ga.kind === 'QUADRATICSURFACE' || gb.kind === 'QUADRATICSURFACE') throw 'TQL_EVALUATION';
  const [ma, mb] = [geometryMbr(ga), geometryMbr(gb)];
  return ma !== undefined && mb !== undefined && mbrIntersects(ma, mb);
}

/** ST_QSFMBRIntersects(sphere, g) as read from WKT. */
function sphereMeetsOfText(sphere: number[], g: string): unknown {
  const geometry = parsed(g);
  if (geometry.kind === 'QUADRATICSURFACE') throw 'TQL_EVALUATION';
  const mbr = geometryMbr(geometry);
  if (mbr === undefined) return false;
  if (geometry.dimension !== 3) throw 'TQL_EVALUATION';
  const q = makeSphere([sphere[0]!, sphere[1]!, sphere[2]!], sphere[3]!);
  assert.ok(q.kind === 'QUADRATICSURFACE');
  return quadraticSurfaceMeetsBox(q.coefficients, mbr);
}

const storable = wktArbitrary.filter((wkt) => !wkt.startsWith('QUADRATICSURFACE'));
const sphereArbitrary = fc.tuple(
  ...[0, 1, 2].map(() => fc.integer({ min: -40, max: 40 }).map((n) => n / 2)),
  fc.integer({ min: 1, max: 40 }),
);

describe('TQL spatial functions on the binary form', () => {
  it('answer as on WKT text, for random geometries of every kind', () => {
    fc.assert(fc.property(storable, wktArbitrary, sphereArbitrary, (stored, other, sphere) => {
      const rows: Row[] = [[1, geometryValueOf(parsed(stored))], [1, stored as Value]];
      const constant = `ST_GeomFromText('${other}')`;
      for (const row of rows) {
        const run = (expression: string) => outcome(() => valueOf(expression, row, GEO));
        assert.deepStrictEqual(run(`ST_MBRIntersects(g, ${constant})`),
          outcome(() => mbrIntersectsOfText(stored, other)), `${stored} / ${other}`);
        assert.deepStrictEqual(run(`ST_MBRIntersects(${constant}, g)`),
          outcome(() => mbrIntersectsOfText(other, stored)), `${other} / ${stored}`);
        assert.deepStrictEqual(run('ST_GetSrId(g)'), { value: parsed(stored).srid });
        assert.deepStrictEqual(run(`ST_QSFMBRIntersects(ST_MakeSphere(${sphere.join(', ')}), g)`),
          outcome(() => sphereMeetsOfText(sphere, stored)), `sphere ${sphere} / ${stored}`);
      }
    }), { numRuns: 1000 });
  });
});
