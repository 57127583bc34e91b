// The export's double formatter (lib/io/double-text.ts, lib/io/native/double-text/double_text.cc)
// against JavaScript's own String(x): every bit pattern (subnormals, ±0, NaN payloads, ±Infinity),
// integers, the 1e21 and 1e-7 boundaries where the layout changes, values of 17 digits, spliced
// at their places in a text; bad arguments throw and a missing addon is reported, not thrown.
// The tests of the addon skip, saying why, only when it is not built (no C++ compiler).

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import fc from 'fast-check';
import { doubleText, doubleTextSupport, loadDoubleText, type DoubleTextAddon } from '../../../lib/io/double-text.ts';

/** What the export writes for one DOUBLE cell (tools/expimp-values.ts's rule: -0 as -0.0). */
function expectedCell(value: number): string {
  return `"${Object.is(value, -0) ? '-0.0' : String(value)}"`;
}

const BITS = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map((bits) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setBigUint64(0, bits);
  return view.getFloat64(0);
});
/** Around the places where Number.prototype.toString changes layout, and ulps either side. */
const BOUNDARIES = fc.tuple(
  fc.constantFrom(1e21, 1e-7, 1e-6, 1, 1e20, 1e-5, 2 ** 53, 2 ** 63, 5e-324, 2.2250738585072014e-308,
    Number.MAX_VALUE, 0.1, 123456789012345680000),
  fc.integer({ min: -3, max: 3 }), fc.boolean(),
).map(([value, ulps, negative]) => {
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, value);
  view.setBigUint64(0, view.getBigUint64(0) + BigInt(ulps));
  return negative ? -view.getFloat64(0) : view.getFloat64(0);
});
const DOUBLE = fc.oneof(
  BITS,
  BOUNDARIES,
  fc.double(),
  fc.integer({ min: -(2 ** 31), max: 2 ** 31 }),
  fc.integer().map((n) => n / 1000),
  fc.double({ min: 0, max: 100, noNaN: true }),
  fc.constantFrom(NaN, -0, 0, Infinity, -Infinity, 0.1 + 0.2, 1.5e-7, 9.999999999999999e20),
);

function addonOrSkip(t: TestContext): DoubleTextAddon | undefined {
  if (doubleText === undefined) t.skip(`double_text addon not available: ${doubleTextSupport.reason}`);
  return doubleText;
}

function splice(addon: DoubleTextAddon, values: number[]): string {
  return addon.spliceDoubles(new Uint8Array(0), 0, new Uint32Array(values.length),
    Float64Array.from(values), values.length).toString('latin1');
}

describe('double text addon', () => {
  it('prints every double as String(x) does, quoted, -0 as -0.0', (t) => {
    const addon = addonOrSkip(t);
    if (addon === undefined) return;
    fc.assert(fc.property(fc.array(DOUBLE, { minLength: 1, maxLength: 64 }), (values) => {
      assert.equal(splice(addon, values), values.map(expectedCell).join(''));
    }), { numRuns: 5000 });
  });

  it('prints the edge values exactly', (t) => {
    const addon = addonOrSkip(t);
    if (addon === undefined) return;
    const cases: Array<[number, string]> = [
      [-0, '-0.0'], [0, '0'], [NaN, 'NaN'], [Infinity, 'Infinity'], [-Infinity, '-Infinity'],
      [1e21, '1e+21'], [999999999999999900000, '999999999999999900000'], [1e-7, '1e-7'],
      [1.5e-7, '1.5e-7'], [0.000001, '0.000001'], [5e-324, '5e-324'], [-5e-324, '-5e-324'],
      [Number.MAX_VALUE, '1.7976931348623157e+308'], [-1.2345678901234568e-300, '-1.2345678901234568e-300'],
      [0.1 + 0.2, '0.30000000000000004'], [2 ** 53 + 2, '9007199254740994'], [123e-20, '1.23e-18'],
    ];
    for (const [value, text] of cases) assert.equal(splice(addon, [value]), `"${text}"`, text);
  });

  it('prints every power of two and its neighbours as String(x) does: the interval below is half as wide', (t) => {
    const addon = addonOrSkip(t);
    if (addon === undefined) return;
    const values: number[] = [];
    const view = new DataView(new ArrayBuffer(8));
    for (let exponent = -1074; exponent <= 1023; exponent++) {
      view.setFloat64(0, 2 ** exponent);
      const bits = view.getBigUint64(0);
      for (const ulps of [-1n, 0n, 1n]) {
        view.setBigUint64(0, bits + ulps);
        values.push(view.getFloat64(0));
      }
    }
    const printed = splice(addon, values);
    assert.equal(printed, values.map(expectedCell).join(''));
  });

  it('splices the cells at their places in the text, in order, with the text around them', (t) => {
    const addon = addonOrSkip(t);
    if (addon === undefined) return;
    const cell = fc.tuple(fc.nat({ max: 40 }), DOUBLE);
    fc.assert(fc.property(fc.string({ maxLength: 40 }), fc.array(cell, { maxLength: 20 }), (text, cells) => {
      const bytes = Buffer.from(text, 'latin1');
      const sorted = cells.map(([at, value]): [number, number] => [Math.min(at, bytes.length), value])
        .sort(([a], [b]) => a - b);
      let expected = '';
      let from = 0;
      for (const [at, value] of sorted) {
        expected += bytes.subarray(from, at).toString('latin1') + expectedCell(value);
        from = at;
      }
      expected += bytes.subarray(from).toString('latin1');
      // A longer buffer than the text used: only textBytes of it count.
      const padded = Buffer.concat([bytes, Buffer.from('junk')]);
      const printed = addon.spliceDoubles(padded, bytes.length, Uint32Array.from(sorted.map(([at]) => at)),
        Float64Array.from(sorted.map(([, value]) => value)), sorted.length);
      assert.equal(printed.toString('latin1'), expected);
    }), { numRuns: 500 });
  });

  it('throws on bad arguments: wrong types, places out of order or beyond the text, counts too large', (t) => {
    const addon = addonOrSkip(t);
    if (addon === undefined) return;
    const text = Buffer.from('abcdef');
    const values = Float64Array.of(1, 2);
    const call = (...args: unknown[]) => (addon.spliceDoubles as (...a: unknown[]) => Buffer)(...args);
    assert.throws(() => call(text, 6, Uint32Array.of(3, 1), values, 2), RangeError);
    assert.throws(() => call(text, 6, Uint32Array.of(1, 7), values, 2), RangeError);
    assert.throws(() => call(text, 7, Uint32Array.of(1, 2), values, 2), RangeError);
    assert.throws(() => call(text, 6, Uint32Array.of(1, 2), values, 3), RangeError);
    assert.throws(() => call(text, 6, Float64Array.of(1, 2), values, 2), TypeError);
    assert.throws(() => call(text, 6, Uint32Array.of(1, 2), Float32Array.of(1, 2), 2), TypeError);
    assert.throws(() => call(text, -1, Uint32Array.of(1, 2), values, 2), TypeError);
    assert.throws(() => call(text, 6), TypeError);
    assert.equal(call(text, 6, Uint32Array.of(1, 6), values, 2).toString(), 'a"1"bcdef"2"');
  });

  it('parses decimals as Number does, and flags the cells beyond a double\'s range or not taken whole', (t) => {
    const addon = addonOrSkip(t);
    if (addon?.parseDoubles === undefined) return;
    const decimal = fc.tuple(fc.boolean(), fc.stringMatching(/^[0-9]{1,25}$/), fc.option(fc.stringMatching(/^[0-9]{1,25}$/)),
      fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 }))))
      .map(([minus, whole, fraction, exponent]) => `${minus ? '-' : ''}${whole}${fraction === null ? '' : `.${fraction}`}` +
        (exponent === null ? '' : `${exponent[0]}${exponent[1]}${exponent[2]}`));
    fc.assert(fc.property(fc.array(fc.oneof(decimal, DOUBLE.filter((x) => Number.isFinite(x)).map(String)),
      { minLength: 1, maxLength: 40 }), (texts) => {
      const text = Buffer.from(`${texts.join(' ')} `, 'latin1');
      const starts = new Uint32Array(texts.length);
      const ends = new Uint32Array(texts.length);
      let at = 0;
      texts.forEach((field, k) => {
        starts[k] = at;
        ends[k] = at + field.length;
        at += field.length + 1;
      });
      const values = new Float64Array(texts.length);
      const ok = new Uint8Array(texts.length);
      addon.parseDoubles!(text, starts, ends, values, ok, texts.length);
      texts.forEach((field, k) => {
        const expected = Number(field);
        if (ok[k] === 0) assert.ok(!Number.isFinite(expected) || expected === 0 || Math.abs(expected) < 2.3e-308, field);
        else assert.ok(Object.is(values[k], expected), `${field}: ${values[k]} against ${expected}`);
      });
    }), { numRuns: 3000 });
    const values = new Float64Array(3);
    const ok = new Uint8Array(3);
    addon.parseDoubles(Buffer.from('1x 2 .'), Uint32Array.of(0, 3, 5), Uint32Array.of(2, 4, 6), values, ok, 3);
    assert.deepEqual([...ok], [0, 1, 0]);
    assert.equal(values[1], 2);
    const call = (...args: unknown[]) => (addon.parseDoubles as (...a: unknown[]) => void)(...args);
    assert.throws(() => call(Buffer.from('12'), Uint32Array.of(0), Uint32Array.of(3), values, ok, 1), RangeError);
    assert.throws(() => call(Buffer.from('12'), Uint32Array.of(2), Uint32Array.of(1), values, ok, 1), RangeError);
    assert.throws(() => call(Buffer.from('12'), Uint32Array.of(0), Uint32Array.of(2), values, ok, 4), RangeError);
    assert.throws(() => call(Buffer.from('12'), Float64Array.of(0), Uint32Array.of(2), values, ok, 1), TypeError);
  });
});

describe('loading the double text addon', () => {
  it('reports a missing or broken addon without throwing', () => {
    const root = mkdtempSync(join(tmpdir(), 'store-double-text-'));
    try {
      const missing = loadDoubleText([join(root, 'absent.node')]);
      assert.equal(missing.addon, undefined);
      assert.match(missing.support.reason ?? '', /addon not built/);
      assert.match(loadDoubleText([]).support.reason ?? '', /nowhere to look/);
      const broken = join(root, 'broken.node');
      writeFileSync(broken, 'not an ELF file');
      const failed = loadDoubleText([broken]);
      assert.equal(failed.addon, undefined);
      assert.match(failed.support.reason ?? '', /failed to load/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
