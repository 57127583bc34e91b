// Spatial functions of TQL (surface.md §3.4): ST_GeomFromText, the makers of rectangles, boxes and
// quadratic surfaces, ST_MBRIntersects, ST_QSFMBRIntersects and ST_GetSrId. Geometry arguments
// and results are GeometryValues (spatial-value.ts): a predicate reads kind, dimension and MBR
// from the header of its binary form and decodes coordinates only when it needs them.
//
// Rules taken from GridDB: ST_MakeRect and ST_MakeBox refuse equal coordinates on an axis;
// ST_MBRIntersects refuses a QUADRATICSURFACE, compares a 2-D and a 3-D geometry on x and y only
// and is FALSE for an empty geometry; ST_MakeSphere refuses r <= 0; ST_MakeCone and
// ST_MakeCylinder refuse a zero axis; a zero-normal plane meets nothing. ST_QSFMBRIntersects needs
// a bounded box, so its second argument must be 3-D (a 2-D geometry spans all of z): an error.

import { SRID_NONE, mbrIntersects, type Geometry, type Position } from '../../geometry/geometry.ts';
import {
  makeCone, makeCylinder, makePlane, makeSphere, quadraticSurface, quadraticSurfaceMeetsBox,
} from '../../geometry/quadratic-surface.ts';
import { geometryValueOf, type GeometryValue } from '../../geometry/geometry-value.ts';
import { toDouble, type Integral } from './arithmetic.ts';
import { tqlEvaluationError, tqlSemanticError, type TqlPosition } from './error.ts';
import {
  argumentOfType, type FunctionArgument, type FunctionBindContext, type ScalarFunctionSpec,
} from './function-spec.ts';
import { geometryArgument, geometryFromTextReader } from './spatial-value.ts';
import { isNumeric, isScalarOf, TQL_BOOL, type TqlType, type TqlValue } from './types.ts';

export const TQL_GEOMETRY: TqlType = { scalar: 'GEOMETRY', array: false };
const TQL_INTEGER: TqlType = { scalar: 'INTEGER', array: false };
const isGeometry = (type: TqlType) => isScalarOf(type, 'GEOMETRY');
const isString = (type: TqlType) => isScalarOf(type, 'STRING');

function numbersOf(args: readonly FunctionArgument[], context: FunctionBindContext): void {
  args.forEach((_, i) => argumentOfType(args, i, context, isNumeric, 'a number'));
}

function doubles(values: readonly TqlValue[]): number[] {
  return values.map((value) => toDouble(value as Integral));
}

/** A maker of QUADRATICSURFACEs from `count` numbers. */
function surfaceMaker(
  usage: string,
  count: number,
  make: (numbers: number[], position: TqlPosition) => Geometry,
): ScalarFunctionSpec {
  return {
    argumentCountMin: count, argumentCountMax: count, usage,
    bind(args, context) {
      numbersOf(args, context);
      return {
        type: TQL_GEOMETRY,
        impl: (values) => geometryValueOf(make(doubles(values), context.position)),
      };
    },
  };
}

function nonZeroAxis(v: readonly number[], name: string, position: TqlPosition): void {
  if (v.every((x) => x === 0)) {
    throw tqlEvaluationError(`the axis of ${name} must not be the zero vector`, position);
  }
}

/** Low and high ends on each axis; equal ends are an error (GridDB's rule). */
function corners(a: Position, b: Position, name: string, position: TqlPosition): number[][] {
  const low: number[] = [];
  const high: number[] = [];
  for (let i = 0; i < a.length; i++) {
    if (a[i] === b[i]) {
      throw tqlEvaluationError(`${name} needs different coordinates on each axis, ` +
        `got ${'xyz'[i]} = ${a[i]} twice`, position);
    }
    low.push(Math.min(a[i]!, b[i]!));
    high.push(Math.max(a[i]!, b[i]!));
  }
  return [low, high];
}

/** The two corner points of ST_MakeRect / ST_MakeBox, from two POINTs or from numbers. */
function cornerArguments(
  values: readonly TqlValue[],
  dimension: 2 | 3,
  name: string,
  position: TqlPosition,
): [Position, Position] {
  if (values.length === 2 * dimension) {
    const numbers = doubles(values);
    return [numbers.slice(0, dimension), numbers.slice(dimension)];
  }
  const points = values.map((value, i) => {
    const { geometry } = geometryArgument(value, position);
    if (geometry.kind !== 'POINT' || geometry.dimension === 0 ||
      geometry.dimension < dimension) {
      throw tqlEvaluationError(`argument ${i + 1} of ${name} must be a ${dimension}-D POINT, ` +
        `not ${geometryArgument(value, position).wkt}`, position);
    }
    return geometry.positions[0]!.slice(0, dimension);
  });
  return [points[0]!, points[1]!];
}

function cornerMaker(name: string, dimension: 2 | 3, usage: string): ScalarFunctionSpec {
  return {
    argumentCountMin: 2, argumentCountMax: 2 * dimension, usage,
    bind(args, context) {
      if (args.length === 2) {
        args.forEach((_, i) => argumentOfType(args, i, context, isGeometry, 'a GEOMETRY'));
      } else if (args.length === 2 * dimension) {
        numbersOf(args, context);
      } else {
        throw tqlSemanticError(`${name} takes 2 or ${2 * dimension} arguments: ${usage}`,
          context.position);
      }
      return {
        type: TQL_GEOMETRY,
        impl: (values) => {
          const [a, b] = cornerArguments(values, dimension, name, context.position);
          const [low, high] = corners(a, b, name, context.position);
          return geometryValueOf(dimension === 2 ? rectangle(low!, high!) : box(low!, high!));
        },
      };
    },
  };
}

/** Counter-clockwise, as GridDB wants outer rings. */
function rectangle(low: readonly number[], high: readonly number[]): Geometry {
  const [x0, y0] = low as [number, number];
  const [x1, y1] = high as [number, number];
  const ring = [[x0, y0], [x1, y0], [x1, y1], [x0, y1], [x0, y0]];
  return { kind: 'POLYGON', srid: SRID_NONE, dimension: 2, rings: [ring] };
}

/** The six faces of a box, each counter-clockwise seen from outside. */
function box(low: readonly number[], high: readonly number[]): Geometry {
  const [x0, y0, z0] = low as [number, number, number];
  const [x1, y1, z1] = high as [number, number, number];
  const face = (...corners: number[][]) => [[...corners, corners[0]!]];
  const polygons = [
    face([x0, y0, z0], [x0, y1, z0], [x1, y1, z0], [x1, y0, z0]),
    face([x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]),
    face([x0, y0, z0], [x1, y0, z0], [x1, y0, z1], [x0, y0, z1]),
    face([x0, y1, z0], [x0, y1, z1], [x1, y1, z1], [x1, y1, z0]),
    face([x0, y0, z0], [x0, y0, z1], [x0, y1, z1], [x0, y1, z0]),
    face([x1, y0, z0], [x1, y1, z0], [x1, y1, z1], [x1, y0, z1]),
  ];
  return { kind: 'POLYHEDRALSURFACE', srid: SRID_NONE, dimension: 3, polygons };
}

type V3 = [number, number, number];

/** A predicate of two GEOMETRY arguments. */
function geometryPair(
  usage: string,
  test: (a: GeometryValue, b: GeometryValue, position: TqlPosition) => boolean,
): ScalarFunctionSpec {
  return {
    argumentCountMin: 2, argumentCountMax: 2, usage,
    bind(args, context) {
      args.forEach((_, i) => argumentOfType(args, i, context, isGeometry, 'a GEOMETRY'));
      return {
        type: TQL_BOOL,
        impl: (values) =>
          test(geometryArgument(values[0], context.position),
            geometryArgument(values[1], context.position), context.position),
      };
    },
  };
}

export const SPATIAL_FUNCTIONS: Record<string, ScalarFunctionSpec> = {
  ST_GEOMFROMTEXT: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'ST_GeomFromText(text)',
    bind(args, context) {
      argumentOfType(args, 0, context, isString, 'a STRING');
      const read = geometryFromTextReader(context.position);
      return { type: TQL_GEOMETRY, impl: (values) => read(values[0] as string) };
    },
  },
  ST_MAKERECT: cornerMaker('ST_MAKERECT', 2, 'ST_MakeRect(p1, p2) or ST_MakeRect(x1, y1, x2, y2)'),
  ST_MAKEBOX: cornerMaker('ST_MAKEBOX', 3,
    'ST_MakeBox(p1, p2) or ST_MakeBox(x1, y1, z1, x2, y2, z2)'),
  ST_MAKEPLANE: surfaceMaker('ST_MakePlane(p0x, p0y, p0z, vx, vy, vz)', 6,
    (n) => makePlane(n.slice(0, 3) as V3, n.slice(3) as V3)),
  ST_MAKESPHERE: surfaceMaker('ST_MakeSphere(p0x, p0y, p0z, r)', 4, (n, position) => {
    if (!(n[3]! > 0)) {
      throw tqlEvaluationError(`the radius of ST_MAKESPHERE must be positive, not ${n[3]}`,
        position);
    }
    return makeSphere(n.slice(0, 3) as V3, n[3]!);
  }),
  ST_MAKECYLINDER: surfaceMaker('ST_MakeCylinder(p0x, p0y, p0z, vx, vy, vz, r)', 7,
    (n, position) => {
      nonZeroAxis(n.slice(3, 6), 'ST_MAKECYLINDER', position);
      return makeCylinder(n.slice(0, 3) as V3, n.slice(3, 6) as V3, Math.abs(n[6]!));
    }),
  ST_MAKECONE: surfaceMaker('ST_MakeCone(p0x, p0y, p0z, vx, vy, vz, deg)', 7,
    (n, position) => {
      nonZeroAxis(n.slice(3, 6), 'ST_MAKECONE', position);
      return makeCone(n.slice(0, 3) as V3, n.slice(3, 6) as V3, n[6]!);
    }),
  ST_MAKEQSF: surfaceMaker(
    'ST_MakeQSF(A00, A01, A02, A10, A11, A12, A20, A21, A22, B0, B1, B2, c)', 13,
    (n) => quadraticSurface(
      [n.slice(0, 3) as V3, n.slice(3, 6) as V3, n.slice(6, 9) as V3], n.slice(9, 12) as V3, n[12]!,
    )),
  ST_MBRINTERSECTS: geometryPair('ST_MBRIntersects(g1, g2)', (a, b, position) => {
    for (const value of [a, b]) {
      if (value.kind === 'QUADRATICSURFACE') {
        throw tqlEvaluationError('ST_MBRINTERSECTS does not take a QUADRATICSURFACE; ' +
          'use ST_QSFMBRIntersects', position);
      }
    }
    if (a.mbr === undefined || b.mbr === undefined) return false;
    return mbrIntersects(a.mbr, b.mbr);
  }),
  ST_QSFMBRINTERSECTS: geometryPair('ST_QSFMBRIntersects(q, g)', (q, g, position) => {
    if (q.kind !== 'QUADRATICSURFACE') {
      throw tqlEvaluationError('argument 1 of ST_QSFMBRINTERSECTS must be a ' +
        `QUADRATICSURFACE, not a ${q.kind}`, position);
    }
    if (g.kind === 'QUADRATICSURFACE') {
      throw tqlEvaluationError('argument 2 of ST_QSFMBRINTERSECTS must not be a ' +
        'QUADRATICSURFACE', position);
    }
    if (q.dimension === 0 || g.mbr === undefined) return false;
    if (g.dimension !== 3) {
      throw tqlEvaluationError('argument 2 of ST_QSFMBRINTERSECTS must be 3-D ' +
        '(a 2-D geometry has no bounded box)', position);
    }
    const surface = q.geometry;
    return surface.kind === 'QUADRATICSURFACE' &&
      quadraticSurfaceMeetsBox(surface.coefficients, g.mbr);
  }),
  ST_GETSRID: {
    argumentCountMin: 1, argumentCountMax: 1, usage: 'ST_GetSrId(g)',
    bind(args, context) {
      argumentOfType(args, 0, context, isGeometry, 'a GEOMETRY');
      return {
        type: TQL_INTEGER, impl: (values) => geometryArgument(values[0], context.position).srid,
      };
    },
  },
};
