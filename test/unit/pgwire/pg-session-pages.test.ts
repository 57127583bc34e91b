// How a query's pages reach the client: when every row is wanted, the engine's next page is asked
// for before the DataRows of this one are written and flushed (the engine makes it meanwhile), and
// none after the last; the DataRows go to flush as written (no copy into the message writer and
// out again); a page that cannot be written while the next is asked for closes the result. A fake
// backend records the order.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { doubleTextSupport } from '../../../lib/io/double-text.ts';
import { PgBackendWriter } from '../../../lib/pgwire/pg-frames.ts';
import { PG_PAGE_ROW_COUNT } from '../../../lib/pgwire/pg-results.ts';
import { PgSession } from '../../../lib/pgwire/pg-session.ts';
import type { PgSqlBackend } from '../../../lib/pgwire/pg-sql-backend.ts';
import type { ColumnSchema } from '../../../lib/schema/container-schema.ts';
import { wireBytes } from './pg-wire-pages.ts';

const COLUMNS: ColumnSchema[] = [{ name: 'x', type: 'DOUBLE', array: false, notNull: false }];

/** A session over a backend whose result has `pageCount` full pages; `events` in the order met. */
function sessionOf(pageCount: number, events: string[], firstPageCut = false): { session: PgSession; out: PgBackendWriter } {
  const page = { count: PG_PAGE_ROW_COUNT, bytes: wireBytes(COLUMNS, Array.from({ length: PG_PAGE_ROW_COUNT }, (_v, i) => [i + 0.5])) };
  let given = 0;
  const backend = {
    execute: () => Promise.resolve({
      kind: 'rows' as const, columns: [{ name: 'x', type: 'DOUBLE' as const }],
      rows: {
        wire: {
          columns: COLUMNS,
          next: async () => {
            const k = ++given;
            events.push(`next ${k}`);
            await new Promise((resolve) => setImmediate(resolve));
            // A first page cut short: its DataRows cannot be written (PROTOCOL_ERROR).
            const bytes = firstPageCut && k === 1 ? page.bytes.subarray(0, page.bytes.length - 1) : page.bytes;
            return { page: { count: page.count, bytes }, done: k === pageCount };
          },
        },
        next: () => Promise.reject(new Error('pages are taken as wire pages here')),
        close: () => {
          events.push('close');
          return Promise.resolve();
        },
      },
    }),
  } as unknown as PgSqlBackend;
  const out = new PgBackendWriter();
  let flushed = 0;
  const session = new PgSession({
    backend, connectionId: 1, user: 'admin', statementTimeoutMs: 0, statementsPerQueryMax: 100,
    serverVersion: '15.0', out,
    flush: (bytes?: Buffer) => {
      const written = out.take();
      if (written.includes('PROTOCOL_ERROR') || written.includes('malformed')) events.push('error sent');
      events.push(`flush ${++flushed}`);
      // A page's DataRows come apart from `out`, handed on without a copy.
      if (bytes !== undefined) events.push(`page bytes ${bytes[0] === 0x44 ? 'DataRow' : bytes[0]} ${bytes.length}`);
      return Promise.resolve();
    },
    takeCancel: () => false,
    monotonicMs: () => 0,
  }, new Map());
  return { session, out };
}

function query(text: string): Buffer {
  return Buffer.from(`${text}\0`, 'utf8');
}

describe('pg-session pages', { skip: doubleTextSupport.available ? undefined : doubleTextSupport.reason }, () => {
  it('asks the engine for the next page before writing this one when every row is wanted', async () => {
    const events: string[] = [];
    const { session } = sessionOf(3, events);
    await session.message(0x51, query('SELECT x FROM t'));
    // Page k + 1 is asked for before page k's DataRows are flushed; none after the last.
    assert.deepEqual(events.filter((e) => e.startsWith('next') || e === 'flush 1' || e === 'flush 2'),
      ['next 1', 'next 2', 'flush 1', 'next 3', 'flush 2']);
    assert.equal(events.filter((e) => e.startsWith('next')).length, 3);
  });

  it('hands each page\'s DataRows to flush as they were written, not through the message writer', async () => {
    const events: string[] = [];
    const { session } = sessionOf(3, events);
    await session.message(0x51, query('SELECT x FROM t'));
    const pages = events.filter((e) => e.startsWith('page bytes'));
    assert.equal(pages.length, 3);
    for (const page of pages) assert.match(page, /^page bytes DataRow \d+$/);
  });

  it('closes the result when a page cannot be written while the next one is asked for', async () => {
    const events: string[] = [];
    const { session } = sessionOf(3, events, true);
    await session.message(0x51, query('SELECT x FROM t'));
    assert.deepEqual(events.filter((e) => e.startsWith('next') || e === 'close' || e === 'error sent'),
      ['next 1', 'next 2', 'close', 'error sent']);
  });
});
