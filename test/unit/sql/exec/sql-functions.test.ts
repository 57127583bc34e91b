// The §5.8 functions and CAST through the planner and executor: time unit keywords reach the
// functions as constants, LIKE … ESCAPE and GLOB compile to calls, and a function's error keeps
// its code with the call's place.

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { StorageError } from '../../../../lib/base/errors.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

let db: SqlTestDatabase;

before(async () => {
  db = await sqlTestDatabase();
});

function code(expected: string) {
  return (error: unknown): true => {
    assert.ok(error instanceof StorageError, String(error));
    assert.equal(error.code, expected, error.message);
    return true;
  };
}

describe('SQL functions in statements', () => {
  it('time units, zones and month-end clamping', async () => {
    assert.deepEqual(await db.rows(
      "SELECT TIMESTAMP_ADD(MONTH, TIMESTAMP('2019-05-31T00:00:00Z'), 1), " +
      "TIMESTAMPDIFF(MONTH, TIMESTAMP('2019-10-02T00:00:00Z'), TIMESTAMP('2019-09-30T00:00:00Z')), " +
      "EXTRACT(DAY_OF_WEEK, TIMESTAMP('2024-02-29T23:00:00Z'), '+09:00'), " +
      "TIMESTAMP_TRUNC(DAY, TIMESTAMP('2024-02-29T23:00:00Z'), '+09:00')"),
    [[Date.parse('2019-06-30T00:00:00Z'), 0n, 5n, Date.parse('2024-02-29T15:00:00Z')]]);
  });
  it('LIKE with ESCAPE ignores ASCII case; GLOB does not', async () => {
    assert.deepEqual(await db.rows("SELECT 'A%c' LIKE 'a!%C' ESCAPE '!', 'abc' GLOB 'A*', 'abc' GLOB 'a?c'"),
      [[true, false, true]]);
  });
  it('CAST and string functions', async () => {
    assert.deepEqual(await db.rows("SELECT CAST('12' AS BYTE), CAST(1.5 AS STRING), PRINTF('%05.1f|%Q', 2.25, 'it''s'), " +
      "SUBSTR('hello', -3), QUOTE(X'AB')"), [[12, '1.5', '002.3|\'it\'\'s\'', 'llo', "X'AB'"]]);
  });
  it('errors keep their codes', async () => {
    await assert.rejects(db.rows('SELECT CAST(128 AS BYTE)'), code('SQL_PROC_VALUE_OVERFLOW'));
    await assert.rejects(db.rows("SELECT CAST('x' AS LONG)"), code('SQL_PROC_VALUE_SYNTAX_ERROR'));
    await assert.rejects(db.rows('SELECT SQRT(-1)'), code('SQL_PROC_INVALID_EXPRESSION_INPUT'));
    await assert.rejects(db.rows('SELECT ABS(-9223372036854775807 - 1)'), code('SQL_PROC_VALUE_OVERFLOW'));
  });
});
