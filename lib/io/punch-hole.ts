// Releasing the unused tail of a data-file slot (DESIGN.md 3.4): fallocate(PUNCH_HOLE | KEEP_SIZE)
// through a tiny N-API addon, because Node has no fallocate. This module owns loading the addon and
// turning its errors into "not supported" or StorageError('IO'); file handles call it.
//
// Build: lib/io/native/punch_hole.c + binding.gyp, compiled by tools/build-native.mjs, the root
// `install` script, so `npm ci` builds it (node-gyp from npm, the running Node's headers via
// --nodedir, no network). Rebuild by hand with `npm run build:native`; node-gyp's output is in
// lib/io/native/build-native.log.
//
// Without it (not Linux, no compiler, a failed build) nothing fails: punchHole returns false and
// releases nothing, so data files keep their full size on disk, and allocatedBytes falls back to
// fstat's st_blocks, which Node has. A file system that answers EOPNOTSUPP is treated the same way.
// Importing this module never throws.
//
// Check, from the project root, whether the addon loads, and what this module makes of it:
//   node -e "console.log(require('./lib/io/native/build/Release/punch_hole.node'))"
//   node --import tsx -e "import('./lib/io/punch-hole.ts').then((m) => console.log(m.punchHoleSupport))"

import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { constants as osConstants } from 'node:os';
import { assert } from '../base/assert.ts';
import { StorageError } from '../base/errors.ts';
import { nativeAddonPaths } from './native-addon-paths.ts';

/** What lib/io/native/punch_hole.c exports. */
export interface PunchHoleAddon {
  /** Throws an Error with `errno` (and `code` 'EOPNOTSUPP' when the file system cannot). */
  punchHole(fd: number, offsetBytes: number, lengthBytes: number): void;
  /** st_blocks × 512. */
  allocatedBytes(fd: number): number;
}

export interface PunchHoleSupport {
  readonly available: boolean;
  /** Why not, when not available. */
  readonly reason?: string;
}

export interface HolePuncher {
  readonly support: PunchHoleSupport;
  /**
   * Releases [offsetBytes, offsetBytes + lengthBytes) of `fd`, keeping the size; the range then
   * reads as zeros. False if holes cannot be punched here (no addon, or EOPNOTSUPP): nothing was
   * released and the data is intact. Throws StorageError('IO') on any other failure.
   */
  punchHole(fd: number, range: { path: string; offsetBytes: number; lengthBytes: number }): boolean;
  /** Bytes the file occupies on disk (st_blocks × 512). */
  allocatedBytes(fd: number, path: string): number;
}

/** Errnos meaning "this kernel or file system cannot punch holes", not "this call went wrong". */
const UNSUPPORTED_ERRNOS = new Set([osConstants.errno.EOPNOTSUPP, osConstants.errno.ENOSYS]);

/** Loads the addon from the first of `addonPaths` that exists; never throws. */
export function loadHolePuncher(addonPaths: readonly string[]): HolePuncher {
  const addonPath = addonPaths.find((candidate) => fs.existsSync(candidate));
  if (addonPath === undefined) {
    const where = addonPaths.length === 0 ? 'nowhere to look' : `no ${addonPaths[0]}`;
    return holePuncherFromAddon(undefined, `addon not built (${where}); run npm run build:native`);
  }
  try {
    const addon: unknown = createRequire(import.meta.url)(addonPath);
    if (!isPunchHoleAddon(addon)) {
      return holePuncherFromAddon(undefined, `${addonPath} does not export punchHole`);
    }
    return holePuncherFromAddon(addon, undefined);
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return holePuncherFromAddon(undefined, `${addonPath} failed to load: ${detail}`);
  }
}

/** A HolePuncher over `addon`, or the fallback if it is undefined (tests pass a fake addon). */
export function holePuncherFromAddon(
  addon: PunchHoleAddon | undefined,
  reason: string | undefined,
): HolePuncher {
  if (addon === undefined) assert(reason !== undefined);
  const support: PunchHoleSupport = addon === undefined
    ? { available: false, reason }
    : { available: true };
  return {
    support,
    punchHole(fd, { path, offsetBytes, lengthBytes }) {
      assertRange(offsetBytes, lengthBytes);
      if (addon === undefined) return false;
      try {
        addon.punchHole(fd, offsetBytes, lengthBytes);
        return true;
      } catch (cause) {
        if (UNSUPPORTED_ERRNOS.has(errnoOf(cause) ?? 0)) return false;
        throw ioError('punch hole', path, cause);
      }
    },
    allocatedBytes(fd, path) {
      try {
        const allocatedBytes = addon === undefined
          ? fs.fstatSync(fd).blocks * 512
          : addon.allocatedBytes(fd);
        assert(Number.isSafeInteger(allocatedBytes));
        return allocatedBytes;
      } catch (cause) {
        throw ioError('stat', path, cause);
      }
    },
  };
}

function assertRange(offsetBytes: number, lengthBytes: number): void {
  assert(Number.isSafeInteger(offsetBytes));
  assert(offsetBytes >= 0);
  assert(Number.isSafeInteger(lengthBytes));
  assert(lengthBytes > 0);
}

function isPunchHoleAddon(value: unknown): value is PunchHoleAddon {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Record<keyof PunchHoleAddon, unknown>>;
  return typeof candidate.punchHole === 'function'
    && typeof candidate.allocatedBytes === 'function';
}

function errnoOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { errno, code } = error as { errno?: unknown; code?: unknown };
  if (code === 'EOPNOTSUPP') return osConstants.errno.EOPNOTSUPP;
  return typeof errno === 'number' ? errno : undefined;
}

function ioError(operation: string, path: string, cause: unknown): StorageError {
  const detail = cause instanceof Error ? cause.message : String(cause);
  return new StorageError('IO', `${operation} ${path}: ${detail}`, { cause });
}

/** The process-wide hole puncher, loaded once at import. */
export const holePuncher: HolePuncher = loadHolePuncher(nativeAddonPaths('punch_hole'));

/** Whether this process can punch holes at all (a file system may still refuse: EOPNOTSUPP). */
export const punchHoleSupport: PunchHoleSupport = holePuncher.support;
