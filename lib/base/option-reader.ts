// Reading members of GridDB's two definition files, gs_cluster.json and gs_node.json. Each read
// validates one member (type, range, allowed values, units) and falls back to its default; every
// problem is collected so that one error can name all bad members at once. The reader remembers
// which members it was asked for, so that whatever is left in a file can be reported as unknown
// (GridDB ignores members it does not know; so do we, with a warning).
//
// Values come out as numbers with units in their names' owners (bytes, ms); no code past the
// config layer parses "64KB" or "300s".

import { isIP } from 'node:net';
import { formatSize, parseDurationMs, parseSizeBytes } from './units.ts';

export type DefinitionFileKey = 'cluster' | 'node';

export const DEFINITION_FILE_NAMES = { cluster: 'gs_cluster.json', node: 'gs_node.json' } as const;

/** The two files as parsed JSON objects; a missing file is undefined (all its defaults). */
export interface DefinitionFiles {
  cluster?: Record<string, unknown> | undefined;
  node?: Record<string, unknown> | undefined;
}

export interface RangeOptions {
  min: number;
  max: number;
}

export interface DurationRangeOptions {
  minMs?: number;
  maxMs?: number;
}

export interface TextOptions {
  lengthMax: number;
  /** The text must match this; `patternText` says in words what it allows. */
  pattern?: RegExp;
  patternText?: string;
}

/** Host names as RFC 1123 allows them: dot-separated labels of letters, digits, inner hyphens. */
const HOST_LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST_NAME_PATTERN = new RegExp(`^(?=.{1,253}$)${HOST_LABEL}(?:\\.${HOST_LABEL})*$`);

export class OptionReader {
  readonly problems: string[] = [];
  /** Members that are accepted but do nothing (removed, or unknown): logged at start. */
  readonly warnings: string[] = [];
  private readonly knownPaths = { cluster: new Set<string>(), node: new Set<string>() };

  constructor(private readonly files: DefinitionFiles) {}

  /** The raw value of a member, or undefined when it is absent. Marks the member as known. */
  member(file: DefinitionFileKey, path: string): unknown {
    this.knownPaths[file].add(path);
    let value: unknown = this.files[file];
    for (const part of pathParts(path)) {
      if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
      const object = value as Record<string, unknown>;
      // The seed spells one member `/datastore/...`; accept that spelling of the group too.
      const spelling = part === 'dataStore' && object[part] === undefined ? 'datastore' : part;
      value = object[spelling];
    }
    return value;
  }

  has(file: DefinitionFileKey, path: string): boolean {
    return this.member(file, path) !== undefined;
  }

  /** Records a problem: `<file> <path>: <value> is not <expected>`. */
  reject(file: DefinitionFileKey, path: string, value: unknown, expected: string): void {
    const where = `${DEFINITION_FILE_NAMES[file]} ${path}`;
    this.problems.push(value === undefined
      ? `${where}: missing; it must be ${expected}`
      : `${where}: ${describe(value)} is not ${expected}`);
  }

  integer(file: DefinitionFileKey, path: string, fallback: number, range: RangeOptions): number {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isInteger(value) || value < range.min ||
      value > range.max) {
      this.reject(file, path, value, `an integer from ${range.min} to ${range.max}`);
      return fallback;
    }
    return value;
  }

  /** A finite number (rates such as 0.5). */
  number(file: DefinitionFileKey, path: string, fallback: number, range: RangeOptions): number {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < range.min ||
      value > range.max) {
      this.reject(file, path, value, `a number from ${range.min} to ${range.max}`);
      return fallback;
    }
    return value;
  }

  boolean(file: DefinitionFileKey, path: string, fallback: boolean): boolean {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'boolean') {
      this.reject(file, path, value, 'true or false');
      return fallback;
    }
    return value;
  }

  /** A size with a unit; `limit` is the list of sizes allowed, or bounds in bytes. */
  size(file: DefinitionFileKey, path: string, fallback: number,
    limit?: readonly number[] | { minBytes?: number; maxBytes?: number }): number {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    const bytes = parseSizeBytes(value);
    if (Array.isArray(limit)) {
      if (bytes === undefined || !limit.includes(bytes)) {
        this.reject(file, path, value, `one of ${limit.map(formatSize).join(', ')}`);
        return fallback;
      }
      return bytes;
    }
    const bounds = limit as { minBytes?: number; maxBytes?: number } | undefined;
    const minBytes = bounds?.minBytes ?? 0;
    const maxBytes = bounds?.maxBytes ?? Number.MAX_SAFE_INTEGER;
    if (bytes === undefined || bytes < minBytes || bytes > maxBytes) {
      const between = minBytes > 0 || maxBytes < Number.MAX_SAFE_INTEGER
        ? ` from ${formatSize(minBytes)} to ${formatSize(maxBytes)}` : '';
      this.reject(file, path, value, `a size with a unit (B, KB, MB, GB, TB)${between}`);
      return fallback;
    }
    return bytes;
  }

  duration(file: DefinitionFileKey, path: string, fallbackMs: number,
    range: DurationRangeOptions = {}): number {
    const value = this.member(file, path);
    if (value === undefined) return fallbackMs;
    const ms = parseDurationMs(value);
    const minMs = range.minMs ?? 0;
    const maxMs = range.maxMs ?? Number.MAX_SAFE_INTEGER;
    if (ms === undefined || ms < minMs || ms > maxMs) {
      this.reject(file, path, value,
        'a duration with a unit (h, min, s, ms)' + durationBoundsText(minMs, maxMs));
      return fallbackMs;
    }
    return ms;
  }

  choice<T extends string>(file: DefinitionFileKey, path: string, fallback: T,
    allowed: readonly T[]): T {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (typeof value !== 'string' || !allowed.includes(value as T)) {
      this.reject(file, path, value, `one of ${allowed.join(', ')}`);
      return fallback;
    }
    return value as T;
  }

  text(file: DefinitionFileKey, path: string, fallback: string, options: TextOptions): string {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    const ok = typeof value === 'string' && value.length <= options.lengthMax &&
      !value.includes('\0') && (options.pattern === undefined || options.pattern.test(value));
    if (!ok) {
      this.reject(file, path, value,
        options.patternText ?? `text of at most ${options.lengthMax} characters`);
      return fallback;
    }
    return value as string;
  }

  /** A directory or file path: absolute, or relative to GS_HOME. */
  path(file: DefinitionFileKey, path: string, fallback: string): string {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (!isPathText(value)) {
      this.reject(file, path, value, 'a directory path');
      return fallback;
    }
    return value;
  }

  pathList(file: DefinitionFileKey, path: string): string[] {
    const value = this.member(file, path);
    if (value === undefined) return [];
    if (!Array.isArray(value) || !value.every(isPathText)) {
      this.reject(file, path, value, 'a list of directory paths');
      return [];
    }
    return value as string[];
  }

  /** An IPv4 or IPv6 address or a host name; `fallback` undefined means "inherit". */
  address<T extends string | undefined>(file: DefinitionFileKey, path: string, fallback: T):
    string | T {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (!isAddress(value)) {
      this.reject(file, path, value, 'an IPv4 or IPv6 address or a host name');
      return fallback;
    }
    return value;
  }

  /** An IPv4 multicast address (224.0.0.0 to 239.255.255.255) or an IPv6 one (ff00::/8). */
  multicastAddress(file: DefinitionFileKey, path: string, fallback: string): string {
    const value = this.member(file, path);
    if (value === undefined) return fallback;
    if (!isMulticastAddress(value)) {
      this.reject(file, path, value, 'a multicast address (224.0.0.0 to 239.255.255.255)');
      return fallback;
    }
    return value;
  }

  /** A TCP or UDP port; `min` 0 lets a test ask the operating system for a free one. */
  port(file: DefinitionFileKey, path: string, fallback: number, min = 1): number {
    return this.integer(file, path, fallback, { min, max: 65_535 });
  }

  /** Records a warning about a member that is present: `<file> <path>: <text>`. */
  warn(file: DefinitionFileKey, path: string, text: string): void {
    this.warnings.push(`${DEFINITION_FILE_NAMES[file]} ${path}: ${text}`);
  }

  /**
   * Adds a warning for each member present in a file that no read asked for. A member under a
   * path that was read as a whole (a list, an object) is not reported. A group that is not an
   * object (`"cluster": "x"`) is a problem. Call after every read.
   */
  warnUnknownMembers(): void {
    for (const file of ['cluster', 'node'] as const) {
      const root = this.files[file];
      if (root === undefined) continue;
      this.collectUnknown(file, root, '', this.warnings);
    }
  }

  private collectUnknown(file: DefinitionFileKey, object: Record<string, unknown>, prefix: string,
    warnings: string[]): void {
    const known = this.knownPaths[file];
    for (const [key, value] of Object.entries(object)) {
      const group = prefix === '' && key === 'datastore' ? 'dataStore' : key;
      const path = `${prefix}/${group}`;
      if (known.has(path)) continue;
      const isGroup = typeof value === 'object' && value !== null && !Array.isArray(value);
      if (hasKnownBelow(known, path)) {
        // A group we read members of: descend, or refuse a value that cannot hold members.
        if (isGroup) this.collectUnknown(file, value as Record<string, unknown>, path, warnings);
        else this.reject(file, path, value, 'an object holding members');
      } else {
        const other = file === 'cluster' ? 'node' : 'cluster';
        const text = this.knownPaths[other].has(path)
          ? `belongs in ${DEFINITION_FILE_NAMES[other]}; ignored here`
          : 'unknown member, ignored';
        warnings.push(`${DEFINITION_FILE_NAMES[file]} ${path}: ${text}`);
      }
    }
  }
}

function pathParts(path: string): string[] {
  return path.split('/').filter(Boolean);
}

function hasKnownBelow(known: Set<string>, path: string): boolean {
  for (const candidate of known) if (candidate.startsWith(`${path}/`)) return true;
  return false;
}

function describe(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

function durationBoundsText(minMs: number, maxMs: number): string {
  if (maxMs < Number.MAX_SAFE_INTEGER) return ` from ${minMs} ms to ${maxMs} ms`;
  return minMs > 0 ? ` of at least ${minMs} ms` : '';
}

function isPathText(value: unknown): value is string {
  return typeof value === 'string' && value.length > 0 && !value.includes('\0');
}

export function isAddress(value: unknown): value is string {
  return typeof value === 'string' && (isIP(value) !== 0 || HOST_NAME_PATTERN.test(value));
}

export function isMulticastAddress(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  if (isIP(value) === 4) {
    const first = Number(value.split('.')[0]);
    return first >= 224 && first <= 239;
  }
  return isIP(value) === 6 && /^ff/i.test(value);
}
