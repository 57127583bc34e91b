// GEOMETRY values while a TQL query runs: GeometryValues (lib/geometry/geometry-value.ts), the
// binary form rows hold, so a spatial function reads a row's geometry without parsing it.
// ST_GeomFromText parses its text through a small bounded cache per call site: a constant is
// parsed once, a STRING column's text once per distinct value at most.

import { geometryValueFromWkt, isGeometryValue, type GeometryValue } from '../../geometry/geometry-value.ts';
import { tqlEvaluationError, type TqlPosition } from './error.ts';

/** Geometries kept per call site; the cache is emptied when it reaches this size. */
const GEOMETRY_CACHE_ENTRY_COUNT_MAX = 256;

/** Parses WKT of one call site, remembering the last few texts. */
export function geometryFromTextReader(position: TqlPosition): (text: string) => GeometryValue {
  const cache = new Map<string, GeometryValue>();
  return (text) => {
    const known = cache.get(text);
    if (known !== undefined) return known;
    const value = geometryFromText(text, position);
    if (cache.size === GEOMETRY_CACHE_ENTRY_COUNT_MAX) cache.clear();
    cache.set(text, value);
    return value;
  };
}

export function geometryFromText(text: string, position: TqlPosition): GeometryValue {
  const value = geometryValueFromWkt(text);
  if (!isGeometryValue(value)) throw tqlEvaluationError(value.problem, position);
  return value;
}

/**
 * A GEOMETRY argument: the row's GeometryValue, or stored text kept from before the binary
 * encoding that does not parse (legacyGeometry), which fails here with its problem, as a query
 * reading it always did.
 */
export function geometryArgument(value: unknown, position: TqlPosition): GeometryValue {
  if (isGeometryValue(value)) return value;
  return geometryFromText(value as string, position);
}
