// Join order of chains of 3+ INNER joins (plan-join-order.ts): by cost from the tables' row counts
// (and TableRowCount hints), by Leading, or FROM's order with NoCostBasedJoin() or
// /sql/costBasedJoin=false; EXPLAIN shows the order (its SCANs, children before parents). A
// property test: random chains of 3–4 tables (equi and non-equi conditions, WHERE filters, a LEFT
// join inside), the rows must be the same in every order (FROM's, the cost's, a random Leading).

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { sqlTestDatabase, type SqlTestDatabase } from './sql-exec-helpers.ts';

const RUN_COUNT = 60;

describe('sql join order', () => {
  let db: SqlTestDatabase;

  before(async () => {
    db = await sqlTestDatabase();
    await db.update('CREATE TABLE big (id INTEGER PRIMARY KEY, mid_id INTEGER, v INTEGER)');
    await db.update('CREATE TABLE mid (id INTEGER PRIMARY KEY, small_id INTEGER, w INTEGER)');
    await db.update('CREATE TABLE small (id INTEGER PRIMARY KEY, name STRING)');
    await db.update(`INSERT INTO big VALUES ${Array.from({ length: 300 }, (_v, i) => `(${i}, ${i % 30}, ${i})`).join(', ')}`);
    await db.update(`INSERT INTO mid VALUES ${Array.from({ length: 30 }, (_v, i) => `(${i}, ${i % 3}, ${i})`).join(', ')}`);
    await db.update("INSERT INTO small VALUES (0, 'x'), (1, 'y'), (2, 'z')");
  });

  after(async () => {
    await db?.test.store.close();
  });

  const chain = 'big.id, mid.w, small.name FROM big JOIN mid ON big.mid_id = mid.id JOIN small ON mid.small_id = small.id';

  /** The tables in the order the plan reads them. */
  async function scanOrder(sql: string, options: { costBasedJoin?: boolean } = {}): Promise<string[]> {
    const rows = await db.rows(`EXPLAIN ${sql}`, [], options);
    return rows.map((row) => JSON.parse(row[0] as string) as { type: string; detail: { table?: string } })
      .filter((entry) => entry.type === 'SCAN').map((entry) => entry.detail.table!);
  }

  it('orders by the tables\' row counts, and again when they change', async () => {
    assert.deepEqual(await scanOrder(`SELECT ${chain}`), ['small', 'mid', 'big']);
    const want = await db.rows(`SELECT /*+ NoCostBasedJoin() */ ${chain} ORDER BY 1`);
    assert.deepEqual(await db.rows(`SELECT ${chain} ORDER BY 1`), want);
    assert.equal(want.length, 300);
    // small grows past mid: mid drives, then the one joined to it with fewer rows.
    await db.update(`INSERT INTO small VALUES ${Array.from({ length: 100 }, (_v, i) => `(${i + 10}, 'n')`).join(', ')}`);
    assert.deepEqual(await scanOrder(`SELECT ${chain}`), ['mid', 'small', 'big']);
    assert.deepEqual(await db.rows(`SELECT ${chain} ORDER BY 1`), want);
    await db.update('DELETE FROM small WHERE id >= 10');
    // TableRowCount stands for the statistics.
    assert.deepEqual(await scanOrder(`SELECT /*+ TableRowCount(big 1) */ ${chain}`), ['big', 'mid', 'small']);
    // A WHERE on one table counts as a filter of it: big filtered thrice is still bigger than mid.
    assert.deepEqual(await scanOrder(`SELECT ${chain} WHERE big.v < 10`), ['small', 'mid', 'big']);
  });

  it('honours Leading, NoCostBasedJoin, CostBasedJoin and /sql/costBasedJoin', async () => {
    assert.deepEqual(await scanOrder(`SELECT /*+ Leading(mid big small) */ ${chain}`), ['mid', 'big', 'small']);
    assert.deepEqual(await scanOrder(`SELECT /*+ Leading((big small)) */ ${chain}`), ['big', 'small', 'mid']);
    assert.deepEqual(await scanOrder(`SELECT /*+ NoCostBasedJoin() */ ${chain}`), ['big', 'mid', 'small']);
    assert.deepEqual(await scanOrder(`SELECT ${chain}`, { costBasedJoin: false }), ['big', 'mid', 'small']);
    assert.deepEqual(await scanOrder(`SELECT /*+ CostBasedJoin() */ ${chain}`, { costBasedJoin: false }),
      ['small', 'mid', 'big']);
    const answers = await Promise.all(['Leading(mid big small)', 'Leading((big small))', 'NoCostBasedJoin()', 'CostBasedJoin()']
      .map((hint) => db.rows(`SELECT /*+ ${hint} */ ${chain} ORDER BY 1`)));
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
  });

  it('gives the same rows in every order (property)', async () => {
    const names = ['t0', 't1', 't2', 't3'];
    for (const name of names) await db.update(`CREATE TABLE ${name} (id INTEGER PRIMARY KEY, k INTEGER, v INTEGER)`);
    const rowsArb = fc.array(fc.record({ k: fc.option(fc.integer({ min: 0, max: 4 }), { freq: 6 }),
      v: fc.integer({ min: -3, max: 3 }) }, { noNullPrototype: true }), { maxLength: 12 });
    const conditionArb = (i: number) => fc.record({
      with: fc.integer({ min: 0, max: i - 1 }),
      form: fc.constantFrom('k = k', 'k = id', 'v < v', 'k = k AND v >= v'),
      left: fc.boolean(),
    }, { noNullPrototype: true });
    const caseArb = fc.integer({ min: 3, max: 4 }).chain((count) => fc.record({
      tables: fc.tuple(...names.slice(0, count).map(() => rowsArb)),
      conditions: fc.tuple(...Array.from({ length: count - 1 }, (_v, i) => conditionArb(i + 1))),
      filter: fc.option(fc.tuple(fc.integer({ min: 0, max: count - 1 }), fc.integer({ min: -3, max: 3 })), { freq: 2 }),
      leading: fc.shuffledSubarray(names.slice(0, count), { minLength: 1 }),
    }, { noNullPrototype: true }));
    await fc.assert(fc.asyncProperty(caseArb, async (c) => {
      const count = c.tables.length;
      for (let t = 0; t < names.length; t++) await db.update(`DELETE FROM ${names[t]}`);
      for (let t = 0; t < count; t++) {
        const rows = c.tables[t]!;
        if (rows.length > 0) {
          await db.update(`INSERT INTO ${names[t]} VALUES ${rows.map((r, i) => `(${i}, ${r.k ?? 'NULL'}, ${r.v})`).join(', ')}`);
        }
      }
      let from = names[0]!;
      const forms: Record<string, (me: string, other: string) => string> = {
        'k = k': (me, other) => `${me}.k = ${other}.k`,
        'k = id': (me, other) => `${me}.k = ${other}.id`,
        'v < v': (me, other) => `${me}.v < ${other}.v`,
        'k = k AND v >= v': (me, other) => `${me}.k = ${other}.k AND ${me}.v >= ${other}.v`,
      };
      c.conditions.forEach((condition, i) => {
        const on = forms[condition.form]!(names[i + 1]!, names[condition.with]!);
        // A LEFT join only as the chain's second table: the INNER joins above it still reorder.
        from += `${condition.left && i === 0 ? ' LEFT' : ''} JOIN ${names[i + 1]} ON ${on}`;
      });
      const where = c.filter === null ? '' : ` WHERE ${names[c.filter[0]]}.v > ${c.filter[1]}`;
      const select = names.slice(0, count).map((name) => `${name}.id, ${name}.v`).join(', ');
      const query = (hint: string) => `SELECT ${hint} ${select} FROM ${from}${where} ORDER BY ` +
        Array.from({ length: 2 * count }, (_v, i) => i + 1).join(', ');
      const want = await db.rows(query('/*+ NoCostBasedJoin() */'));
      assert.deepEqual(await db.rows(query('')), want, query(''));
      assert.deepEqual(await db.rows(query(`/*+ Leading(${c.leading.join(' ')}) */`)), want, query(`Leading(${c.leading.join(' ')})`));
    }), { numRuns: RUN_COUNT, seed: 20_261_126 });
  });
});
