// The row sets a GridDB connection holds (griddb-row-sets.ts): at most GRIDDB_ROW_SETS_MAX open
// and GRIDDB_ROW_SET_BYTES_MAX of rows, both refused with LIMIT_EXCEEDED and room again once
// closed; a row id names the key of the row it was sent with, in its container only, for the last
// GRIDDB_ROW_IDS_MAX ids; rows of a container without a key get ids that name nothing.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GriddbError, GriddbErrorCode } from '../../../../lib/server/griddb/griddb-error.ts';
import {
  GRIDDB_ROW_IDS_MAX, GRIDDB_ROW_SET_BYTES_MAX, GRIDDB_ROW_SETS_MAX, GriddbRowSets,
  type GriddbRowSet,
} from '../../../../lib/server/griddb/griddb-row-sets.ts';

function rowSet(sets: GriddbRowSets, rows: number, bytes = 100, keyColumnCount = 1,
  containerId = 5): GriddbRowSet {
  return {
    containerId, columns: [{ name: 'id', type: 'INTEGER', array: false, notNull: true }],
    rows: Array.from({ length: rows }, (_row, i) => [i * 10]),
    firstRowId: sets.takeRowIds(rows), keyColumnCount, bytes,
  };
}

const limited = (error: unknown) => error instanceof GriddbError &&
  error.error.code === GriddbErrorCode.LIMIT_EXCEEDED.code;

describe('GridDB row sets of a connection', () => {
  it('holds at most GRIDDB_ROW_SETS_MAX row sets and GRIDDB_ROW_SET_BYTES_MAX bytes', () => {
    const sets = new GriddbRowSets();
    const ids = Array.from({ length: GRIDDB_ROW_SETS_MAX }, () => sets.keep(rowSet(sets, 2)));
    assert.throws(() => sets.keep(rowSet(sets, 2)), limited);
    sets.close(ids[0]!);
    sets.close(ids[0]!); // closed already: nothing
    assert.equal(sets.openCount, GRIDDB_ROW_SETS_MAX - 1);
    for (const id of ids.slice(1)) sets.close(id);
    assert.equal(sets.openBytes, 0);
    sets.keep(rowSet(sets, 2, GRIDDB_ROW_SET_BYTES_MAX - 10));
    assert.throws(() => sets.keep(rowSet(sets, 2, 11)), limited);
    assert.throws(() => sets.checkBytes(11), limited);
    sets.checkBytes(10);
  });

  it('maps a sent row id to its key in its container, for the last GRIDDB_ROW_IDS_MAX ids', () => {
    const sets = new GriddbRowSets();
    const set = rowSet(sets, 3);
    const id = sets.keep(set);
    assert.throws(() => sets.rowOf(set.firstRowId!, 5)); // not sent yet
    const sent = sets.sent(set, 1, 3)!;
    assert.deepEqual(sent, [set.firstRowId! + 1n, set.firstRowId! + 2n]);
    assert.deepEqual(sets.rowOf(sent[1]!, 5), { containerId: 5, key: 20 });
    assert.throws(() => sets.rowOf(sent[1]!, 6), GriddbError);
    assert.equal(sets.get(id), set);
    sets.close(id);
    assert.throws(() => sets.get(id), (error: unknown) => error instanceof GriddbError &&
      error.error.code === GriddbErrorCode.DS_DS_RESULT_ID_INVALID.code);
    assert.deepEqual(sets.rowOf(sent[1]!, 5).key, 20); // ids outlive their row set
    const many = rowSet(sets, GRIDDB_ROW_IDS_MAX);
    sets.sent(many, 0, GRIDDB_ROW_IDS_MAX);
    assert.throws(() => sets.rowOf(sent[1]!, 5), GriddbError);
    assert.deepEqual(sets.rowOf(many.firstRowId!, 5).key, 0);
  });

  it('gives ids without keys to a keyless collection, and none to a time series', () => {
    const sets = new GriddbRowSets();
    const keyless = rowSet(sets, 2, 100, 0);
    const ids = sets.sent(keyless, 0, 2)!;
    assert.equal(ids.length, 2);
    assert.throws(() => sets.rowOf(ids[0]!, 5), GriddbError);
    assert.equal(sets.sent({ ...keyless, firstRowId: undefined }, 0, 2), undefined);
  });
});
