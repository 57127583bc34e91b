// The postgres dialect (statements of the PostgreSQL protocol) against GridDB's: a string literal
// compared with a TIMESTAMP is read as one, `GROUP BY 1` names the first select item, FLOOR and
// CEIL exist; in GridDB's dialect each stays as §5.7 and §5.8 have it. EXTRACT(field FROM ts) is
// accepted in both (GridDB has no such form, so no statement of GridDB's changes meaning).

import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { StorageError } from '../../../../lib/base/errors.ts';
import { postgresScalarFunction } from '../../../../lib/sql/functions/postgres-compat.ts';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

let db: SqlTestDatabase;
const POSTGRES = { dialect: 'postgres', functions: postgresScalarFunction } as const;
const T0_MS = Date.parse('2026-01-01T00:00:00Z');

before(async () => {
  db = await sqlTestDatabase();
  await db.update('CREATE TABLE g (ts TIMESTAMP PRIMARY KEY, v DOUBLE)');
  await db.update("INSERT INTO g VALUES (TIMESTAMP('2026-01-01T00:00:00Z'), 1), (TIMESTAMP('2026-01-01T00:00:30Z'), 3), " +
    "(TIMESTAMP('2026-01-01T00:01:10Z'), 5)");
});

function code(expected: string) {
  return (error: unknown): true => {
    assert.ok(error instanceof StorageError, String(error));
    assert.equal(error.code, expected, error.message);
    return true;
  };
}

describe('SQL: the postgres dialect', () => {
  it('a string literal compared with a TIMESTAMP: read as one in postgres, TYPE_MISMATCH in GridDB', async () => {
    const text = "SELECT v FROM g WHERE ts BETWEEN '2026-01-01T00:00:10Z' AND '2026-01-01T00:01:10.000Z' " +
      "AND ts <> '2026-01-01 00:00:00' AND ts IN ('2026-01-01T00:00:30Z', '2026-01-01T00:01:10Z') ORDER BY ts";
    assert.deepEqual(await db.rows(text, [], POSTGRES), [[3], [5]]);
    await assert.rejects(db.rows(text), code('TYPE_MISMATCH'));
    await assert.rejects(db.rows("SELECT v FROM g WHERE ts > 'soon'", [], POSTGRES), (error) => error instanceof StorageError);
  });

  it('GROUP BY 1 groups by the first select item in postgres, by a constant in GridDB', async () => {
    const text = 'SELECT floor(extract(epoch from ts)/60)*60 AS "time", avg(v) FROM g GROUP BY 1 ORDER BY 1';
    assert.deepEqual(await db.rows(text, [], POSTGRES), [[T0_MS / 1000, 2], [T0_MS / 1000 + 60, 5]]);
    await assert.rejects(db.rows(text), code('NOT_SUPPORTED')); // FLOOR is no GridDB function
    assert.deepEqual(await db.rows('SELECT avg(v) FROM g GROUP BY 1'), [[3]]);
    await assert.rejects(db.rows('SELECT avg(v) FROM g GROUP BY 1', [], POSTGRES), code('SQL_COMPILE_SYNTAX_ERROR'));
  });

  it('EXTRACT(field FROM ts) is EXTRACT(field, ts); EPOCH is seconds as a DOUBLE', async () => {
    assert.deepEqual(await db.rows('SELECT EXTRACT(MINUTE FROM ts), EXTRACT(epoch FROM ts), CEIL(2.5), FLOOR(-2.5), ' +
      "FLOOR(7) FROM g WHERE ts = TIMESTAMP('2026-01-01T00:01:10Z')", [], POSTGRES),
    [[1n, T0_MS / 1000 + 70, 3, -3, 7n]]);
    assert.deepEqual(await db.rows("SELECT EXTRACT(SECOND FROM ts) FROM g WHERE ts = TIMESTAMP('2026-01-01T00:01:10Z')"),
      [[10n]]);
  });
});
