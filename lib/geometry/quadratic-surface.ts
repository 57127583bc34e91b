// Quadratic surfaces f(X) = <AX, X> + <B, X> + c = 0 (GridDB's QUADRATICSURFACE): the makers
// behind ST_MakePlane, ST_MakeSphere, ST_MakeCylinder and ST_MakeCone, and the test of whether a
// surface meets a box (ST_QSFMBRIntersects).
//
// Meeting a box. f is continuous and a box is connected, so the surface meets the box exactly when
// the least and the greatest value of f over the box bracket 0. Both are reached at a critical
// point of f restricted to the box's interior, one of its faces or one of its edges, or at a
// corner: for each of the 27 ways to pin every coordinate to its low end, its high end or leave it
// free, the gradient in the free coordinates is set to 0 and solved; a solution inside the box is a
// candidate. A singular system means f is linear or constant along some line there, and its
// extremes then lie on a smaller face, which another of the 27 cases covers. A surface with A = 0
// and B = 0 (the zero-normal plane) is undefined and meets nothing (surface.md §3.4).

import { SRID_NONE, type Geometry, type Mbr } from './geometry.ts';

type Vector = readonly [number, number, number];
type Matrix = readonly [Vector, Vector, Vector];

const IDENTITY: Matrix = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
const ZERO: Matrix = [[0, 0, 0], [0, 0, 0], [0, 0, 0]];
/** A pivot smaller than this (relative to the row) counts as singular. */
const PIVOT_EPSILON = 1e-12;

export function quadraticSurface(a: Matrix, b: Vector, c: number): Geometry {
  const coefficients = [...a[0], ...a[1], ...a[2], ...b, c];
  return { kind: 'QUADRATICSURFACE', srid: SRID_NONE, coefficients, dimension: 3 };
}

/** The plane through p0 with normal v: <v, X - p0> = 0. */
export function makePlane(p0: Vector, v: Vector): Geometry {
  return quadraticSurface(ZERO, v, -dot(v, p0));
}

/** The sphere of centre p0 and radius r > 0: |X - p0|² - r² = 0. */
export function makeSphere(p0: Vector, r: number): Geometry {
  return centred(IDENTITY, p0, -r * r);
}

/** The cylinder of axis (p0, v), v ≠ 0, and radius |r|: |X - p0|² - <u, X - p0>² - r² = 0. */
export function makeCylinder(p0: Vector, v: Vector, r: number): Geometry {
  const u = unit(v);
  return centred(subtract(IDENTITY, outer(u, u)), p0, -r * r);
}

/**
 * The cone of apex p0, axis v ≠ 0 and half-angle `degrees` (modulo 360):
 * <u, X - p0>² - cos²θ |X - p0|² = 0.
 */
export function makeCone(p0: Vector, v: Vector, degrees: number): Geometry {
  const u = unit(v);
  const cosine = Math.cos(((degrees % 360) * Math.PI) / 180);
  return centred(subtract(outer(u, u), scale(IDENTITY, cosine * cosine)), p0, 0);
}

/** <A(X - p0), X - p0> + k expanded into A, B, c. */
function centred(a: Matrix, p0: Vector, k: number): Geometry {
  const ap = multiply(a, p0);
  const atp = multiply(transpose(a), p0);
  return quadraticSurface(a, [-(ap[0] + atp[0]), -(ap[1] + atp[1]), -(ap[2] + atp[2])],
    dot(p0, ap) + k);
}

/** Whether the surface f = 0 meets the closed box; the box must be finite. */
export function quadraticSurfaceMeetsBox(coefficients: readonly number[], box: Mbr): boolean {
  const a: number[][] =
    [coefficients.slice(0, 3), coefficients.slice(3, 6), coefficients.slice(6, 9)];
  const b = coefficients.slice(9, 12);
  const c = coefficients[12]!;
  if (a.flat().every((x) => x === 0) && b.every((x) => x === 0)) return false;
  // The gradient of f is (A + Aᵀ)X + B; H = A + Aᵀ.
  const h = a.map((row, i) => row.map((x, j) => x + a[j]![i]!));
  const low = [box.minX, box.minY, box.minZ];
  const high = [box.maxX, box.maxY, box.maxZ];
  const f = (x: readonly number[]) => {
    let value = c;
    for (let i = 0; i < 3; i++) {
      value += b[i]! * x[i]!;
      for (let j = 0; j < 3; j++) value += a[i]![j]! * x[i]! * x[j]!;
    }
    return value;
  };
  let below = false;
  let above = false;
  for (let pins = 0; pins < 27; pins++) {
    const pin = [pins % 3, Math.floor(pins / 3) % 3, Math.floor(pins / 9)];
    const point = criticalPoint(h, b, pin, low, high);
    if (point === undefined) continue;
    const value = f(point);
    if (value <= 0) below = true;
    if (value >= 0) above = true;
    if (below && above) return true;
  }
  return false;
}

/** pin[i]: 0 low end, 1 high end, 2 free. The critical point in the box, or undefined. */
function criticalPoint(
  h: readonly (readonly number[])[],
  b: readonly number[],
  pin: readonly number[],
  low: readonly number[],
  high: readonly number[],
): number[] | undefined {
  const x = pin.map((p, i) => (p === 0 ? low[i]! : p === 1 ? high[i]! : 0));
  const free = [0, 1, 2].filter((i) => pin[i] === 2);
  if (free.length === 0) return x;
  // Solve Σ_j∈free H[i][j] x_j = -(B_i + Σ_j∉free H[i][j] x_j) for i in free.
  const rows = free.map((i) => [
    ...free.map((j) => h[i]![j]!),
    -(b[i]! + [0, 1, 2].filter((j) => pin[j] !== 2).reduce((s, j) => s + h[i]![j]! * x[j]!, 0)),
  ]);
  const solution = solve(rows);
  if (solution === undefined) return undefined;
  for (let k = 0; k < free.length; k++) {
    const i = free[k]!;
    const value = solution[k]!;
    if (!(value >= low[i]! && value <= high[i]!)) return undefined;
    x[i] = value;
  }
  return x;
}

/** Gaussian elimination with partial pivoting; undefined when singular. */
function solve(rows: number[][]): number[] | undefined {
  const n = rows.length;
  for (let col = 0; col < n; col++) {
    let best = col;
    for (let r = col + 1; r < n; r++) {
      if (Math.abs(rows[r]![col]!) > Math.abs(rows[best]![col]!)) best = r;
    }
    const size = Math.max(...rows[best]!.slice(0, n).map(Math.abs));
    if (size === 0 || Math.abs(rows[best]![col]!) <= PIVOT_EPSILON * size) return undefined;
    [rows[col], rows[best]] = [rows[best]!, rows[col]!];
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const factor = rows[r]![col]! / rows[col]![col]!;
      for (let k = col; k <= n; k++) rows[r]![k]! -= factor * rows[col]![k]!;
    }
  }
  return rows.map((row, i) => row[n]! / row[i]!);
}

function dot(a: Vector, b: Vector): number {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

function unit(v: Vector): Vector {
  const length = Math.sqrt(dot(v, v));
  return [v[0] / length, v[1] / length, v[2] / length];
}

function outer(a: Vector, b: Vector): Matrix {
  return [
    [a[0] * b[0], a[0] * b[1], a[0] * b[2]],
    [a[1] * b[0], a[1] * b[1], a[1] * b[2]],
    [a[2] * b[0], a[2] * b[1], a[2] * b[2]],
  ];
}

function subtract(a: Matrix, b: Matrix): Matrix {
  return a.map((row, i) => row.map((x, j) => x - b[i]![j]!)) as unknown as Matrix;
}

function scale(a: Matrix, k: number): Matrix {
  return a.map((row) => row.map((x) => x * k)) as unknown as Matrix;
}

function transpose(a: Matrix): Matrix {
  return [[a[0][0], a[1][0], a[2][0]], [a[0][1], a[1][1], a[2][1]], [a[0][2], a[1][2], a[2][2]]];
}

function multiply(a: Matrix, v: Vector): Vector {
  return [dot(a[0], v), dot(a[1], v), dot(a[2], v)];
}
