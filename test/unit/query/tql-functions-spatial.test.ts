import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerSchema } from '../../../lib/schema/container-schema.ts';
import type { Row } from '../../../lib/schema/column-type.ts';
import { isGeometryValue, legacyGeometry } from '../../../lib/geometry/geometry-value.ts';
import { evaluate, tqlError, valueOf } from './tql-test-helpers.ts';

const GEO: ContainerSchema = {
  name: 'geo', type: 'COLLECTION', rowKeyColumnCount: 1, indexes: [], schemaVersion: 1,
  columns: [
    { name: 'id', type: 'INTEGER', array: false, notNull: true },
    { name: 'g', type: 'GEOMETRY', array: false, notNull: false },
    { name: 's', type: 'STRING', array: false, notNull: false },
  ],
};

/** Rows hold a GEOMETRY in its binary form (legacyGeometry keeps a text that does not parse). */
function row(g: string | null, s: string | null = null): Row {
  return [1, g === null ? null : legacyGeometry(g), s];
}

/** A GEOMETRY result as the WKT GridDB prints. */
function value(expression: string, g: string | null = null): unknown {
  const result = valueOf(expression, row(g), GEO);
  return isGeometryValue(result) ? result.wkt : result;
}

function holds(condition: string, g: string | null = null): void {
  assert.equal(evaluate(condition, row(g), GEO), true, condition);
}

function fails(condition: string, code: string, message: RegExp, g: string | null = null): void {
  assert.throws(() => evaluate(condition, row(g), GEO), tqlError(code as 'TQL_EVALUATION',
    undefined, message));
}

describe('TQL spatial functions', () => {
  it('ST_GeomFromText gives the canonical WKT and refuses bad text', () => {
    assert.equal(value("ST_GeomFromText('point( 1  2.50 ;4326)')"), 'POINT(1 2.5;4326)');
    assert.equal(value("ST_GeomFromText('LINESTRING(EMPTY)')"), 'LINESTRING(EMPTY)');
    assert.equal(value('ST_GeomFromText(s)'), null);
    fails("ST_GeomFromText('POINT(nan 1)') IS NULL", 'TQL_EVALUATION', /NaN and INF/);
    fails("ST_GeomFromText('POINT(1 2') IS NULL", 'TQL_EVALUATION', /invalid WKT/);
    fails('ST_GeomFromText(1) IS NULL', 'TQL_SEMANTIC', /must be a STRING/);
  });

  it('ST_MakeRect makes a counter-clockwise POLYGON; equal x or y is an error', () => {
    assert.equal(value('ST_MakeRect(2, 3, 0, 1)'), 'POLYGON((0 1,2 1,2 3,0 3,0 1))');
    assert.equal(value("ST_MakeRect(ST_GeomFromText('POINT(0 0)'), " +
      "ST_GeomFromText('POINT(1 1)'))"), 'POLYGON((0 0,1 0,1 1,0 1,0 0))');
    fails('ST_MakeRect(1, 0, 1, 5) IS NULL', 'TQL_EVALUATION', /different coordinates.*x = 1/);
    fails('ST_MakeRect(0, 2, 1, 2) IS NULL', 'TQL_EVALUATION', /y = 2/);
    fails('ST_MakeRect(0, 2, 1) IS NULL', 'TQL_SEMANTIC', /takes 2 or 4 arguments/);
    fails("ST_MakeRect(ST_GeomFromText('LINESTRING(0 0,1 1)'), " +
      "ST_GeomFromText('POINT(1 1)')) IS NULL", 'TQL_EVALUATION', /must be a 2-D POINT/);
  });

  it('ST_MakeBox makes a closed POLYHEDRALSURFACE; equal coordinates are an error', () => {
    const box = value('ST_MakeBox(0, 0, 0, 1, 2, 3)') as string;
    assert.match(box, /^POLYHEDRALSURFACE\(\(\(0 0 0,0 2 0,1 2 0,1 0 0,0 0 0\)\),/);
    assert.equal(box.match(/\(\(/g)!.length, 6);
    holds("ST_MBRIntersects(ST_MakeBox(0, 0, 0, 1, 2, 3), ST_GeomFromText('POINT(1 2 3)'))");
    holds("NOT ST_MBRIntersects(ST_MakeBox(0, 0, 0, 1, 2, 3), ST_GeomFromText('POINT(1 2 3.5)'))");
    assert.equal(value("ST_MakeBox(ST_GeomFromText('POINT(0 0 0)'), " +
      "ST_GeomFromText('POINT(1 2 3)'))"), box);
    fails('ST_MakeBox(0, 0, 0, 1, 1, 0) IS NULL', 'TQL_EVALUATION', /z = 0/);
    fails("ST_MakeBox(ST_GeomFromText('POINT(0 0)'), ST_GeomFromText('POINT(1 1)')) IS NULL",
      'TQL_EVALUATION', /3-D POINT/);
  });

  it('ST_MBRIntersects: touching counts, 2-D vs 3-D on x and y, empty is FALSE', () => {
    const rect = "ST_GeomFromText('POLYGON((0 0,10 0,10 10,0 10,0 0))')";
    holds(`ST_MBRIntersects(g, ${rect})`, 'POINT(5 5)');
    holds(`ST_MBRIntersects(g, ${rect})`, 'POINT(10 10)');
    holds(`NOT ST_MBRIntersects(g, ${rect})`, 'POINT(10.5 5)');
    holds(`ST_MBRIntersects(${rect}, g)`, 'LINESTRING(-5 -5,20 -1,1 20)');
    holds(`ST_MBRIntersects(g, ${rect})`, 'POINT(5 5 1000)');
    holds(`ST_MBRIntersects(g, ST_MakeBox(0, 0, 0, 1, 1, 1))`, 'POINT(0.5 0.5)');
    holds(`NOT ST_MBRIntersects(g, ST_MakeBox(0, 0, 0, 1, 1, 1))`, 'POINT(0.5 0.5 2)');
    holds(`NOT ST_MBRIntersects(g, ${rect})`, 'POINT(EMPTY)');
    holds(`NOT ST_MBRIntersects(g, g)`, 'POLYGON(EMPTY)');
    assert.equal(evaluate(`ST_MBRIntersects(g, ${rect})`, row(null), GEO), null);
    fails('ST_MBRIntersects(g, ST_MakeSphere(0, 0, 0, 1))', 'TQL_EVALUATION',
      /does not take a QUADRATICSURFACE/, 'POINT(0 0)');
    fails('ST_MBRIntersects(s, g)', 'TQL_SEMANTIC', /argument 1 of ST_MBRINTERSECTS must be a GEOMETRY/);
    fails("ST_MBRIntersects(g, 'POINT(1 1)')", 'TQL_SEMANTIC', /must be a GEOMETRY, not STRING/);
  });

  it('the quadratic surface makers and their errors', () => {
    assert.equal(value('ST_MakeSphere(1, 2, 3, 2)'),
      'QUADRATICSURFACE(1 0 0 0 1 0 0 0 1 -2 -4 -6 10)');
    assert.equal(value('ST_MakePlane(0, 0, 5, 0, 0, 2)'),
      'QUADRATICSURFACE(0 0 0 0 0 0 0 0 0 0 0 2 -10)');
    assert.equal(value('ST_MakeQSF(1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, -1, 0)'),
      'QUADRATICSURFACE(1 0 0 0 1 0 0 0 0 0 0 -1 0)');
    assert.equal(value('ST_MakeCylinder(0, 0, 0, 0, 0, 3, -2)'),
      'QUADRATICSURFACE(1 0 0 0 1 0 0 0 0 -0 -0 -0 -4)');
    fails('ST_MakeSphere(0, 0, 0, 0) IS NULL', 'TQL_EVALUATION', /radius.*positive/);
    fails('ST_MakeSphere(0, 0, 0, -1) IS NULL', 'TQL_EVALUATION', /radius.*positive/);
    fails('ST_MakeCone(0, 0, 0, 0, 0, 0, 30) IS NULL', 'TQL_EVALUATION', /zero vector/);
    fails('ST_MakeCylinder(0, 0, 0, 0, 0, 0, 1) IS NULL', 'TQL_EVALUATION', /zero vector/);
    fails('ST_MakePlane(0, 0, 0, 0, 0) IS NULL', 'TQL_SEMANTIC', /takes 6 arguments/);
    fails("ST_MakeQSF(1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, -1, 'c') IS NULL", 'TQL_SEMANTIC',
      /argument 13 of ST_MAKEQSF must be a number/);
  });

  it('ST_QSFMBRIntersects: a surface against the box of a 3-D geometry', () => {
    const sphere = 'ST_MakeSphere(0, 0, 0, 1)';
    holds(`ST_QSFMBRIntersects(${sphere}, ST_MakeBox(0.5, -1, -1, 2, 1, 1))`);
    // A box wholly inside the sphere, and one wholly outside, meet no point of it.
    holds(`NOT ST_QSFMBRIntersects(${sphere}, ST_MakeBox(-0.1, -0.1, -0.1, 0.1, 0.1, 0.1))`);
    holds(`NOT ST_QSFMBRIntersects(${sphere}, ST_MakeBox(2, 2, 2, 3, 3, 3))`);
    holds(`ST_QSFMBRIntersects(ST_MakePlane(0, 0, 1, 0, 0, 1), g)`, 'LINESTRING(0 0 0,1 1 2)');
    holds(`NOT ST_QSFMBRIntersects(ST_MakePlane(0, 0, 5, 0, 0, 1), g)`, 'LINESTRING(0 0 0,1 1 2)');
    // Zero normal: an undefined plane meets nothing.
    holds(`NOT ST_QSFMBRIntersects(ST_MakePlane(0, 0, 0, 0, 0, 0), g)`, 'POINT(0 0 0)');
    // The cone of apex 0, axis z, 45°: x² + y² = z². Its axis is inside, its mantle crosses z = 1.
    const cone = 'ST_MakeCone(0, 0, 0, 0, 0, 1, 405)';
    holds(`ST_QSFMBRIntersects(${cone}, ST_MakeBox(0.9, -0.1, 0.95, 1.1, 0.1, 1.05))`);
    holds(`NOT ST_QSFMBRIntersects(${cone}, ST_MakeBox(-0.1, -0.1, 0.9, 0.1, 0.1, 1.1))`);
    // A cylinder of radius 1 about z: the saddle-free minimum lies inside a face.
    const cylinder = 'ST_MakeCylinder(0, 0, 0, 0, 0, 1, 1)';
    holds(`ST_QSFMBRIntersects(${cylinder}, ST_MakeBox(-2, -0.1, 5, 2, 0.1, 6))`);
    holds(`NOT ST_QSFMBRIntersects(${cylinder}, ST_MakeBox(-0.5, -0.5, 5, 0.5, 0.5, 6))`);
    holds(`NOT ST_QSFMBRIntersects(${sphere}, g)`, 'POINT(EMPTY)');
    fails(`ST_QSFMBRIntersects(${sphere}, g)`, 'TQL_EVALUATION', /must be 3-D/, 'POINT(0 0)');
    fails('ST_QSFMBRIntersects(g, g)', 'TQL_EVALUATION', /must be a QUADRATICSURFACE/, 'POINT(0 0 0)');
    fails(`ST_QSFMBRIntersects(${sphere}, ${sphere})`, 'TQL_EVALUATION', /must not be a QUADRATIC/);
  });

  it('ST_GetSrId gives the SRID or -1', () => {
    holds('ST_GetSrId(g) = 4326', 'POINT(1 2;4326)');
    holds('ST_GetSrId(g) = -1', 'POINT(1 2)');
    holds("ST_GetSrId(ST_GeomFromText('POLYGON(EMPTY;7)')) = 7");
    assert.equal(evaluate('ST_GetSrId(g) = -1', row(null), GEO), null);
    fails('ST_GetSrId(s) = 1', 'TQL_SEMANTIC', /must be a GEOMETRY/);
  });

  it('a stored value that is not WKT (data older than the check) is an evaluation error', () => {
    fails("ST_MBRIntersects(g, ST_MakeRect(0, 0, 1, 1))", 'TQL_EVALUATION', /invalid WKT/,
      'CIRCLE(1)');
    holds("ST_MBRIntersects(g, ST_MakeRect(0, 0, 1, 1))", 'point ( 0.5  0.5 )');
  });
});
