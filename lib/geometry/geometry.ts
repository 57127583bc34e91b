// GEOMETRY values in memory, as the WKT parser (wkt-parse.ts) gives them and the printer
// (wkt-print.ts) writes them, and their minimum bounding boxes (MBRs).
//
// A geometry is 2-D or 3-D throughout (every position has 2 or 3 numbers, never mixed) or empty
// (dimension 0, no positions). Coordinates are finite doubles: NaN and ±INF are refused when
// parsed.
// The MBR of a 2-D geometry spans z from -INF to +INF, so that a 2-D and a 3-D geometry compare on
// x and y only (surface.md §3.4); an empty geometry has no MBR and intersects nothing.

/** One position: [x, y] or [x, y, z]. */
export type Position = readonly number[];

export type GeometryKind =
  'POINT' | 'LINESTRING' | 'POLYGON' | 'POLYHEDRALSURFACE' | 'QUADRATICSURFACE';

export const GEOMETRY_KINDS: readonly GeometryKind[] =
  ['POINT', 'LINESTRING', 'POLYGON', 'POLYHEDRALSURFACE', 'QUADRATICSURFACE'];

/** SRID when the WKT gives none. */
export const SRID_NONE = -1;

interface Common {
  /** 0 for an empty geometry. */
  readonly dimension: 0 | 2 | 3;
  readonly srid: number;
}

export type Geometry =
  | Common & { readonly kind: 'POINT'; readonly positions: readonly Position[] }
  | Common & { readonly kind: 'LINESTRING'; readonly positions: readonly Position[] }
  | Common & { readonly kind: 'POLYGON'; readonly rings: readonly (readonly Position[])[] }
  | Common & {
    readonly kind: 'POLYHEDRALSURFACE';
    readonly polygons: readonly (readonly (readonly Position[])[])[];
  }
  | Common & {
    readonly kind: 'QUADRATICSURFACE';
    /** A00 A01 A02 A10 A11 A12 A20 A21 A22 B0 B1 B2 c of f(X) = <AX, X> + <B, X> + c = 0. */
    readonly coefficients: readonly number[];
  };

export interface Mbr {
  readonly minX: number;
  readonly minY: number;
  readonly minZ: number;
  readonly maxX: number;
  readonly maxY: number;
  readonly maxZ: number;
}

/** Every position of a geometry (none for a QUADRATICSURFACE or an empty one). */
export function geometryPositions(geometry: Geometry): readonly Position[] {
  switch (geometry.kind) {
    case 'POINT': case 'LINESTRING': return geometry.positions;
    case 'POLYGON': return geometry.rings.flat();
    case 'POLYHEDRALSURFACE': return geometry.polygons.flat(2);
    case 'QUADRATICSURFACE': return [];
  }
}

/** The bounding box; undefined for an empty geometry and for a QUADRATICSURFACE (unbounded). */
export function geometryMbr(geometry: Geometry): Mbr | undefined {
  const positions = geometryPositions(geometry);
  if (positions.length === 0) return undefined;
  let minX = Infinity; let minY = Infinity; let minZ = Infinity;
  let maxX = -Infinity; let maxY = -Infinity; let maxZ = -Infinity;
  for (const p of positions) {
    minX = Math.min(minX, p[0]!); maxX = Math.max(maxX, p[0]!);
    minY = Math.min(minY, p[1]!); maxY = Math.max(maxY, p[1]!);
    if (p.length === 3) { minZ = Math.min(minZ, p[2]!); maxZ = Math.max(maxZ, p[2]!); }
  }
  if (geometry.dimension === 2) { minZ = -Infinity; maxZ = Infinity; }
  return { minX, minY, minZ, maxX, maxY, maxZ };
}

/** Whether two boxes share a point (touching counts). */
export function mbrIntersects(a: Mbr, b: Mbr): boolean {
  return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY &&
    a.minZ <= b.maxZ && b.minZ <= a.maxZ;
}
