// The web API's request logger: a request gets the server's logger itself, not a pino child made
// for it (a per-request allocation that showed in the profile), and a failed request's line still
// names it (reqId, method, url). No node is needed: a MULTICAST cluster is refused (500) before
// anything connects.

import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { Repository } from '../../../lib/webapi/config/repository.ts';
import { WEBAPI_SETTINGS_DEFAULT } from '../../../lib/webapi/config/webapi-settings.ts';
import { WebApiServer } from '../../../lib/webapi/webapi-server.ts';
import { assertError, HttpCaller } from './webapi-test-helpers.ts';

const REPOSITORY: Repository = { clusters: [{ name: 'm', mode: 'MULTICAST', address: '239.0.0.1',
  port: 31999, jdbcAddress: '239.0.0.1', jdbcPort: 41999 }] };

describe('web API request logger', () => {
  it('logs a failed request by its id, method and url, with no child logger per request',
    async () => {
      const lines: Array<Record<string, unknown>> = [];
      const sink = new Writable({ write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      } });
      const logger = pino({ level: 'info' }, sink);
      const server = await WebApiServer.start({ repository: REPOSITORY, logger,
        settings: { ...WEBAPI_SETTINGS_DEFAULT, port: 0, address: '127.0.0.1' } });
      // Counted from here: the server may make children of its own while it starts.
      let childCount = 0;
      const child = logger.child.bind(logger);
      logger.child = ((...args: Parameters<typeof logger.child>) => {
        childCount++;
        return child(...args);
      }) as typeof logger.child;
      try {
        const http = new HttpCaller(server.port);
        for (let i = 0; i < 3; i++) {
          assertError(await http.call('GET', '/store/v2/m/dbs/public/checkConnection'), 500);
        }
        assertError(await http.call('POST', '/store/v2/m/dbs/public/tql',
          { body: [{ name: 'c', stmt: 'select *' }] }), 500);
      } finally {
        await server.close();
      }
      assert.equal(childCount, 0);
      const failed = lines.filter((line) => String(line['msg']).startsWith('request failed'));
      assert.equal(failed.length, 4);
      assert.deepEqual(failed.map((line) => line['method']), ['GET', 'GET', 'GET', 'POST']);
      assert.equal(failed[3]!['url'], '/store/v2/m/dbs/public/tql');
      assert.equal(new Set(failed.map((line) => line['reqId'])).size, 4);
    });
});
