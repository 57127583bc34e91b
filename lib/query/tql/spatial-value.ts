// GEOMETRY values while a TQL query runs. They travel as canonical WKT strings (types.ts), as rows
// hold them; a spatial function parses its geometry arguments through a small bounded cache, so a
// constant argument is parsed once and a row's value once per function call site at most.

import { geometryMbr, type Geometry, type Mbr } from '../../geometry/geometry.ts';
import { isWktProblem, parseWkt } from '../../geometry/wkt-parse.ts';
import { tqlEvaluationError, type TqlPosition } from './error.ts';

/** Parsed geometries kept per call site; the cache is emptied when it reaches this size. */
const GEOMETRY_CACHE_ENTRY_COUNT_MAX = 256;

export interface ParsedGeometry {
  readonly geometry: Geometry;
  /** undefined: empty, or a QUADRATICSURFACE. */
  readonly mbr: Mbr | undefined;
}

/** Parses WKT of one call site, remembering the last few texts. */
export function geometryReader(position: TqlPosition): (text: string) => ParsedGeometry {
  const cache = new Map<string, ParsedGeometry>();
  return (text) => {
    const known = cache.get(text);
    if (known !== undefined) return known;
    const parsed = parseGeometry(text, position);
    if (cache.size === GEOMETRY_CACHE_ENTRY_COUNT_MAX) cache.clear();
    cache.set(text, parsed);
    return parsed;
  };
}

export function parseGeometry(text: string, position: TqlPosition): ParsedGeometry {
  const geometry = parseWkt(text);
  if (isWktProblem(geometry)) throw tqlEvaluationError(geometry.problem, position);
  return { geometry, mbr: geometryMbr(geometry) };
}
