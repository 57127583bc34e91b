import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { isStorageError } from '../../../lib/base/errors.ts';
import { COLUMN_NAME_LENGTH_MAX, blockSizeLimits } from '../../../lib/base/limits.ts';
import {
  DATA_AFFINITY_UNIQUE, normalizeName, validateColumnName, validateContainerName,
  validateDataAffinity, validateIndexName,
} from '../../../lib/schema/names.ts';

const limits = blockSizeLimits(64 * 1024);
const invalidName = (error: unknown) => isStorageError(error, 'INVALID_NAME');

describe('container names', () => {
  it('accepts every allowed character and a node affinity suffix', () => {
    const good = ['sensor1', 'Sensor_1', 'a-b.c/d=e', '_x', '.hidden', 'col01@12', 'c@node-1'];
    for (const name of good) {
      assert.equal(validateContainerName(name, limits), name);
    }
  });

  it('refuses a leading digit, other characters, Unicode letters and empty parts', () => {
    const bad = ['1sensor', 'a b', 'a#b', 'é', 'caf\u00e9', 'a@', '@a', 'a@b@c', 'a@b c', '',
      'x\0'];
    for (const name of bad) {
      assert.throws(() => validateContainerName(name, limits), invalidName, name);
    }
  });

  it('refuses non-strings with INVALID_NAME, not a TypeError', () => {
    for (const name of [undefined, null, 1, {}, [], true]) {
      assert.throws(() => validateContainerName(name, limits), invalidName);
    }
  });

  it('limits the length by block size, the affinity part included', () => {
    const max = limits.containerNameLengthMax;
    assert.equal(validateContainerName('a'.repeat(max), limits).length, max);
    assert.throws(() => validateContainerName('a'.repeat(max + 1), limits), invalidName);
    assert.throws(() => validateContainerName(`${'a'.repeat(max - 2)}@12`, limits), invalidName);
    const large = blockSizeLimits(1024 * 1024);
    assert.equal(validateContainerName('a'.repeat(max + 1), large).length, max + 1);
  });
});

describe('column names', () => {
  it('allow a leading digit (the spec has no rule against it) and the same characters', () => {
    for (const name of ['1st', 'temp', 'a-b.c/d=e_f']) assert.equal(validateColumnName(name), name);
  });

  it('are at most COLUMN_NAME_LENGTH_MAX characters', () => {
    assert.equal(validateColumnName('c'.repeat(COLUMN_NAME_LENGTH_MAX)).length, 256);
    assert.throws(() => validateColumnName('c'.repeat(COLUMN_NAME_LENGTH_MAX + 1)), invalidName);
  });

  it('refuses @, spaces and empty names, naming the container', () => {
    assert.throws(() => validateColumnName('a@b', 'sensor1'), /column name in "sensor1"/);
    assert.throws(() => validateColumnName('a b'), invalidName);
    assert.throws(() => validateColumnName(''), invalidName);
  });
});

describe('index names and data affinity', () => {
  it('index names follow the column rules with the container name length', () => {
    assert.equal(validateIndexName('1idx', limits), '1idx');
    assert.equal(validateIndexName('i'.repeat(300), limits).length, 300);
    assert.throws(() => validateIndexName('i x', limits), invalidName);
  });

  it('data affinity is at most 8 characters, or #unique', () => {
    assert.equal(validateDataAffinity('group_01'), 'group_01');
    assert.equal(validateDataAffinity(DATA_AFFINITY_UNIQUE), '#unique');
    assert.throws(() => validateDataAffinity('group_012'), invalidName);
    assert.throws(() => validateDataAffinity('#other'), invalidName);
    assert.throws(() => validateDataAffinity(''), invalidName);
    assert.throws(() => validateDataAffinity(8), invalidName);
  });
});

describe('normalizeName', () => {
  it('maps names differing only in case to one key', () => {
    assert.equal(normalizeName('Sensor'), normalizeName('SENSOR'));
    assert.notEqual(normalizeName('Sensor1'), normalizeName('Sensor2'));
  });

  it('folds ASCII letters only: the Kelvin sign does not become k', () => {
    assert.equal(normalizeName('\u212Aey'), '\u212Aey');
    assert.equal(normalizeName('\u212AEY'), '\u212Aey');
    assert.equal(normalizeName('ÉA'), 'Éa');
  });

  it('is idempotent and keeps the length of valid (ASCII) names', () => {
    const nameCharacter = fc.constantFrom(...'aZ09_-./='.split(''), 'Q', 'q');
    const name = fc.string({ unit: nameCharacter, minLength: 1, maxLength: 20 });
    fc.assert(fc.property(name, (name) => {
      const key = normalizeName(name);
      assert.equal(normalizeName(key), key);
      assert.equal(key.length, name.length);
      assert.equal(normalizeName(name.toUpperCase()), key);
    }), { numRuns: 1000 });
  });
});
