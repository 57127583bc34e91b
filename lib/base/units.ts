// Unit strings are parsed here, at the edge. Code past options.ts sees byte and millisecond numbers only.

export const KiB = 1024;
export const MiB = 1024 * KiB;
export const GiB = 1024 * MiB;
export const TiB = 1024 * GiB;

const SIZE_UNITS_BYTES: Record<string, number> = {
  b: 1, k: KiB, kb: KiB, m: MiB, mb: MiB, g: GiB, gb: GiB, t: TiB, tb: TiB,
};

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1000, min: 60_000, h: 3_600_000 };

/** "64KB" → 65536. Units are mandatory and case-insensitive. Returns undefined for bad text. */
export function parseSizeBytes(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^\s*(\d+)\s*([a-zA-Z]+)\s*$/.exec(text);
  if (!match) return undefined;
  const unitBytes = SIZE_UNITS_BYTES[match[2]!.toLowerCase()];
  if (unitBytes === undefined) return undefined;
  const bytes = Number(match[1]) * unitBytes;
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** "300s" → 300000. Units are mandatory (h, min, s, ms). Returns undefined for bad text. */
export function parseDurationMs(text: unknown): number | undefined {
  if (typeof text !== 'string') return undefined;
  const match = /^\s*(\d+)\s*([a-zA-Z]+)\s*$/.exec(text);
  if (!match) return undefined;
  const unitMs = DURATION_UNITS_MS[match[2]!.toLowerCase()];
  if (unitMs === undefined) return undefined;
  const ms = Number(match[1]) * unitMs;
  return Number.isSafeInteger(ms) ? ms : undefined;
}

export function formatSize(bytes: number): string {
  for (const [unit, size] of [['TB', TiB], ['GB', GiB], ['MB', MiB], ['KB', KiB]] as const) {
    if (bytes >= size && bytes % size === 0) return `${bytes / size}${unit}`;
  }
  return `${bytes}B`;
}
