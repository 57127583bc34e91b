// Loading the export's double formatter, lib/io/native/double-text/double_text.cc: the quoted
// JavaScript text (String(x), -0 as -0.0) of a page's DOUBLE and FLOAT cells spliced into the rest
// of the page in one native call, because String(x) takes V8's slow bignum path for many 17-digit
// doubles (5.7 s of a 10.2 s export of the TSBS day). tools/expimp-page-printer.ts is its caller,
// and the web API's answers of rows with DOUBLE columns (lib/webapi/codec/rows-double-splice.ts).
// The other way, parseDoubles reads a batch of a row file's DOUBLE cells for gs_import
// (tools/expimp-row-scan.ts): Number(text) was most of that import's parse on 17-digit doubles.
//
// Build: tools/build-native.mjs at `npm ci` (or `npm run build:native`), with a C++17 compiler
// (g++); node-gyp's output is in lib/io/native/double-text/build-native.log. Without it (no g++,
// a failed build) nothing fails: doubleText is undefined and the page printer formats with
// String(x), the same bytes, slower. Importing this module never throws.
//
// Check, from the project root, whether it loads:
//   node --import tsx -e "import('./lib/io/double-text.ts').then((m) => console.log(m.doubleTextSupport))"

import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import { nativeAddonPaths } from './native-addon-paths.ts';

/** What double_text.cc exports. */
export interface DoubleTextAddon {
  /**
   * `text`'s first `textBytes` bytes with `"<String(values[k])>"` (`"-0.0"` for -0) inserted at
   * byte `at[k]` for k < count, as a new Buffer; `at` is non-decreasing. Bad arguments throw.
   */
  spliceDoubles(text: Uint8Array, textBytes: number, at: Uint32Array, values: Float64Array,
    count: number): Buffer;
  /**
   * The same with each value as the web API's JSON number (String(x) bare when finite, -0 as -0,
   * `"NaN"`, `"Infinity"`, `"-Infinity"`); absent from an addon built before it.
   */
  spliceJsonDoubles?(text: Uint8Array, textBytes: number, at: Uint32Array, values: Float64Array,
    count: number): Buffer;
  /**
   * The k-th cell (k < count), `text`'s bytes [starts[k], ends[k]), parsed as Number(cell) does
   * when it is a decimal number in range: values[k] and ok[k] = 1; else ok[k] = 0 (NaN, Infinity,
   * an exponent out of range, not a number: the caller's own parser decides). Absent from an addon
   * built before it.
   */
  parseDoubles?(text: Uint8Array, starts: Uint32Array, ends: Uint32Array, values: Float64Array,
    ok: Uint8Array, count: number): void;
  /**
   * A whole export page of fixed-size columns (double_text_page.h: `kinds` a byte per column as
   * tools/expimp-page-printer.ts numbers them, `notNull` 1 for NOT NULL) printed into `out`, which
   * holds at least count × (columns × 40 + 1) bytes: the bytes written, or -1 for a malformed page
   * (nothing to rely on in `out` then). Absent from an addon built before it.
   */
  printPage?(bytes: Uint8Array, count: number, kinds: Uint8Array, notNull: Uint8Array,
    out: Uint8Array): number;

  /**
   * The PostgreSQL text-format DataRows of `count` rows of a query page in the row codec's wire
   * form, columns of `codes` (lib/pgwire/pg-data-rows-wire.ts numbers the types and draws the
   * layout), as a new Buffer; or why the page does not hold the rows. Absent from an addon built
   * before it.
   */
  pgTextDataRows?(page: Uint8Array, count: number, codes: Uint8Array): Buffer | string;
}

export interface DoubleTextSupport {
  readonly available: boolean;
  /** Why not, when not available. */
  readonly reason?: string;
}

/** The addon from the first of `addonPaths` that exists, or why there is none; never throws. */
export function loadDoubleText(addonPaths: readonly string[]): {
  addon: DoubleTextAddon | undefined;
  support: DoubleTextSupport;
} {
  const addonPath = addonPaths.find((candidate) => fs.existsSync(candidate));
  if (addonPath === undefined) {
    const where = addonPaths.length === 0 ? 'nowhere to look' : `no ${addonPaths[0]}`;
    return notLoaded(`addon not built (${where}); run npm run build:native`);
  }
  try {
    const addon: unknown = createRequire(import.meta.url)(addonPath);
    if (typeof addon !== 'object' || addon === null ||
      typeof (addon as Partial<Record<keyof DoubleTextAddon, unknown>>).spliceDoubles !== 'function') {
      return notLoaded(`${addonPath} does not export spliceDoubles`);
    }
    return { addon: addon as DoubleTextAddon, support: { available: true } };
  } catch (cause) {
    const detail = cause instanceof Error ? cause.message : String(cause);
    return notLoaded(`${addonPath} failed to load: ${detail}`);
  }
}

function notLoaded(reason: string) {
  return { addon: undefined, support: { available: false, reason } };
}

const loaded = loadDoubleText(nativeAddonPaths('double_text', 'native/double-text'));

/** The process-wide formatter, loaded once at import; undefined without the addon. */
export const doubleText: DoubleTextAddon | undefined = loaded.addon;

export const doubleTextSupport: DoubleTextSupport = loaded.support;
