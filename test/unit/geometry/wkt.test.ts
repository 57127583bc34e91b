import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { geometryMbr, mbrIntersects, type Geometry } from '../../../lib/geometry/geometry.ts';
import { isWktProblem, parseWkt } from '../../../lib/geometry/wkt-parse.ts';
import { formatCoordinate, printWkt } from '../../../lib/geometry/wkt-print.ts';

function canonical(text: string): string {
  const geometry = parseWkt(text);
  assert.ok(!isWktProblem(geometry), `${text}: ${isWktProblem(geometry) ? geometry.problem : ''}`);
  return printWkt(geometry);
}

function problem(text: string): string {
  const geometry = parseWkt(text);
  assert.ok(isWktProblem(geometry), `${text} parsed`);
  return geometry.problem;
}

describe('WKT', () => {
  it('reads every kind, 2-D and 3-D, and prints it as GridDB does', () => {
    const cases: [string, string][] = [
      ['POINT(1 2)', 'POINT(1 2)'],
      [' point ( 1.50  -2e3  3 ) ', 'POINT(1.5 -2000 3)'],
      ['LINESTRING(0 0, 1 1 ,2 0)', 'LINESTRING(0 0,1 1,2 0)'],
      ['LINESTRING(0 0 0,1 1 1)', 'LINESTRING(0 0 0,1 1 1)'],
      ['POLYGON((0 0,10 0,10 10,0 10,0 0))', 'POLYGON((0 0,10 0,10 10,0 10,0 0))'],
      ['POLYGON((0 0,10 0,10 10,0 0),(1 1,2 1,2 2,1 1))',
        'POLYGON((0 0,10 0,10 10,0 0),(1 1,2 1,2 2,1 1))'],
      ['POLYHEDRALSURFACE(((0 0 0,0 1 0,1 1 0,0 0 0)),((0 0 1,1 0 1,1 1 1,0 0 1)))',
        'POLYHEDRALSURFACE(((0 0 0,0 1 0,1 1 0,0 0 0)),((0 0 1,1 0 1,1 1 1,0 0 1)))'],
      ['QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 0 0 0 -1)',
        'QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 0 0 0 -1)'],
    ];
    for (const [text, printed] of cases) assert.equal(canonical(text), printed, text);
  });

  it('reads EMPTY in both spellings and the ;srid suffix', () => {
    assert.equal(canonical('POINT(EMPTY)'), 'POINT(EMPTY)');
    assert.equal(canonical('linestring empty'), 'LINESTRING(EMPTY)');
    assert.equal(canonical('POLYGON( EMPTY )'), 'POLYGON(EMPTY)');
    assert.equal(canonical('POLYHEDRALSURFACE(EMPTY)'), 'POLYHEDRALSURFACE(EMPTY)');
    assert.equal(canonical('POINT(1 2;4326)'), 'POINT(1 2;4326)');
    assert.equal(canonical('POINT(1 2 ; -1)'), 'POINT(1 2)');
    assert.equal(canonical('POLYGON((0 0,1 0,1 1,0 0);3857)'), 'POLYGON((0 0,1 0,1 1,0 0);3857)');
    assert.equal(canonical('QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 0 0 0 -1;7)'),
      'QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 0 0 0 -1)');
    const geometry = parseWkt('POINT(1 2;4326)');
    assert.ok(!isWktProblem(geometry) && geometry.srid === 4326);
    const plain = parseWkt('POINT(1 2)');
    assert.ok(!isWktProblem(plain) && plain.srid === -1);
  });

  it('refuses NaN and INF, spelled or by overflow', () => {
    assert.match(problem('POINT(NaN 1)'), /character 7: .*NaN and INF are not allowed/);
    assert.match(problem('POINT(1 inf)'), /NaN and INF/);
    assert.match(problem('POINT(1 -Infinity)'), /number/);
    assert.match(problem('POINT(1e400 0)'), /NaN and INF/);
  });

  it('refuses malformed text with where and what', () => {
    assert.match(problem(''), /character 1: expected a geometry kind/);
    assert.match(problem('CIRCLE(1 2)'), /expected a geometry kind/);
    assert.match(problem('MULTIPOINT((1 2))'), /expected a geometry kind/);
    assert.match(problem('POINT(1)'), /expected a number/);
    assert.match(problem('POINT(1 2'), /expected '\)', found the end/);
    assert.match(problem('POINT(1 2) x'), /expected the end of the text/);
    assert.match(problem('LINESTRING(1 2)'), /a second point/);
    assert.match(problem('LINESTRING(1 2,3 4 5)'), /2 coordinates/);
    assert.match(problem('POLYGON((0 0,1 0,1 1,0 1))'), /closed ring/);
    assert.match(problem('POLYGON((0 0,1 0,0 0))'), /4 or more points/);
    assert.match(problem('POLYHEDRALSURFACE(((0 0,0 1,1 1,0 0)))'), /3-D/);
    assert.match(problem('QUADRATICSURFACE(1 2 3)'), /expected a number/);
    assert.match(problem('POINT(1 2;1.5)'), /integer SRID/);
    assert.match(problem('POINT(1 2;4294967296)'), /32 bits/);
  });

  it('prints coordinates as %.16g', () => {
    assert.equal(formatCoordinate(0.1), '0.1');
    assert.equal(formatCoordinate(1 / 3), '0.3333333333333333');
    assert.equal(formatCoordinate(123456789.125), '123456789.125');
    assert.equal(formatCoordinate(1e16), '1e+16');
    assert.equal(formatCoordinate(1234567890123456), '1234567890123456');
    assert.equal(formatCoordinate(0.0001), '0.0001');
    assert.equal(formatCoordinate(0.00001), '1e-05');
    assert.equal(formatCoordinate(-2.5e-300), '-2.5e-300');
    assert.equal(formatCoordinate(-0), '-0');
    // 16 digits would round past the largest double: 17 keep it readable.
    assert.equal(formatCoordinate(-1.7976931348623155e308), '-1.7976931348623155e+308');
  });

  it('prints what it reads so that reading the print gives it back', () => {
    const coordinate = fc.double({ noNaN: true, noDefaultInfinity: true });
    fc.assert(fc.property(fc.array(fc.tuple(coordinate, coordinate), { minLength: 2, maxLength: 5 }),
      (points) => {
        const text = `LINESTRING(${points.map(([x, y]) => `${x} ${y}`).join(',')})`;
        const once = canonical(text);
        assert.equal(canonical(once), once);
        const parsed = parseWkt(once) as Geometry;
        assert.ok(parsed.kind === 'LINESTRING');
        // %.16g keeps 16 digits: a coordinate comes back within one part in 10^15.
        parsed.positions.forEach((p, i) => {
          for (const k of [0, 1]) {
            const want = points[i]![k]!;
            assert.ok(Math.abs(p[k]! - want) <= Math.abs(want) * 1e-15, `${p[k]} vs ${want}`);
          }
        });
      }));
  });

  it('prints the same digits on its fixed-notation fast path as the general %.16g path', () => {
    // The general path: round with toExponential, then write fixed or C-style exponent notation.
    const general = (value: number): string => {
      const strip = (t: string) => (t.includes('.') ? t.replace(/\.?0+$/, '') : t);
      const [mantissa, exponentText] = value.toExponential(15).split('e');
      const exponent = Number(exponentText);
      if (exponent < -4 || exponent >= 16) {
        return `${strip(mantissa!)}e${exponent < 0 ? '-' : '+'}` +
          String(Math.abs(exponent)).padStart(2, '0');
      }
      return strip(value.toFixed(15 - exponent));
    };
    const near = (x: number) => [x, x * (1 - 2 ** -52), x * (1 + 2 ** -52), -x];
    const values = fc.oneof(
      fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e17, max: 1e17 }),
      fc.integer({ min: -(10 ** 9), max: 10 ** 9 }).map((n) => n / 1000),
      fc.constantFrom(...[1e-4, 1e16, 8.00000000000001, 1.0000152587890625].flatMap(near)),
    ).filter((v) => v !== 0);
    fc.assert(fc.property(values, (v) => {
      assert.equal(formatCoordinate(v), general(v), String(v));
    }), { numRuns: 20_000 });
  });

  it('bounds 2-D geometries over all of z and empty ones not at all', () => {
    const flat = parseWkt('LINESTRING(0 0,2 3)') as Geometry;
    const high = parseWkt('POINT(1 1 100)') as Geometry;
    const empty = parseWkt('POINT(EMPTY)') as Geometry;
    const mbr = geometryMbr(flat)!;
    assert.deepEqual(mbr, { minX: 0, minY: 0, minZ: -Infinity, maxX: 2, maxY: 3, maxZ: Infinity });
    assert.equal(mbrIntersects(mbr, geometryMbr(high)!), true);
    assert.equal(geometryMbr(empty), undefined);
  });
});
