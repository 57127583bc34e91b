// The WKT writer: a geometry as GridDB prints it (gis_point.h and its kin), which is also the form
// store keeps in its rows: the kind in capitals, no blanks but one between coordinates, ',' between
// points and parts, `;srid` before the closing parenthesis when there is one, `KIND(EMPTY)` for an
// empty geometry, and every coordinate as C's %.16g (an ostream with setprecision(16)).

import { SRID_NONE, type Geometry, type Position } from './geometry.ts';

const PRECISION_DIGITS = 16;

export function printWkt(geometry: Geometry): string {
  // GridDB prints no SRID for a QUADRATICSURFACE (gis_quadraticsurface.h).
  const srid = geometry.srid === SRID_NONE || geometry.kind === 'QUADRATICSURFACE'
    ? '' : `;${geometry.srid}`;
  return `${geometry.kind}(${body(geometry)}${srid})`;
}

function body(geometry: Geometry): string {
  if (geometry.dimension === 0) return 'EMPTY';
  switch (geometry.kind) {
    case 'POINT': case 'LINESTRING': return points(geometry.positions);
    case 'POLYGON': return rings(geometry.rings);
    case 'POLYHEDRALSURFACE': return geometry.polygons.map((p) => `(${rings(p)})`).join(',');
    case 'QUADRATICSURFACE': return geometry.coefficients.map(formatCoordinate).join(' ');
  }
}

function rings(list: readonly (readonly Position[])[]): string {
  return list.map((ring) => `(${points(ring)})`).join(',');
}

function points(positions: readonly Position[]): string {
  return positions.map((p) => p.map(formatCoordinate).join(' ')).join(',');
}

/**
 * A finite double as C's printf("%.16g"). Within 16 digits of ±Number.MAX_VALUE that would round
 * past it, to a text that reads back as ±INF, which the parser refuses: 17 digits are printed
 * there, so that every stored value reads back.
 */
export function formatCoordinate(value: number): string {
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const text = formatDigits(value, PRECISION_DIGITS);
  return Number.isFinite(Number(text)) ? text : formatDigits(value, PRECISION_DIGITS + 1);
}

/** Where %.16g prints fixed notation whatever the rounding: [1e-4, 1e16) (see formatCoordinate). */
const FIXED_ABS_MIN = 1e-4;
const FIXED_ABS_MAX = 1e16;

function formatDigits(value: number, precisionDigits: number): string {
  // The common case in one call: toPrecision rounds to the same digits as toExponential (the
  // nearest, the larger on a tie) and writes fixed notation for a rounded exponent in [-6, 16),
  // which holds %.16g's [-4, 16) when |value| is at least 1e-4; a value that rounds up to 1e16
  // comes back with an exponent and takes the general path.
  const abs = Math.abs(value);
  if (precisionDigits === PRECISION_DIGITS && abs >= FIXED_ABS_MIN && abs < FIXED_ABS_MAX) {
    const fixed = value.toPrecision(precisionDigits);
    if (!fixed.includes('e')) return stripZeros(fixed);
  }
  const [mantissa, exponentText] = value.toExponential(precisionDigits - 1).split('e');
  const exponent = Number(exponentText);
  if (exponent < -4 || exponent >= precisionDigits) {
    const sign = exponent < 0 ? '-' : '+';
    const digits = String(Math.abs(exponent)).padStart(2, '0');
    return `${stripZeros(mantissa!)}e${sign}${digits}`;
  }
  return stripZeros(value.toFixed(precisionDigits - 1 - exponent));
}

function stripZeros(text: string): string {
  if (!text.includes('.')) return text;
  return text.replace(/\.?0+$/, '');
}
