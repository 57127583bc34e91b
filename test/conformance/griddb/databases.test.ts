// GridDB's own C client (5.8, unmodified) logged in to a database other than public (the
// "database" property, sent with LOGIN): a container of one name is a different container in
// each database (lib/schema/database-names.ts), and a database that does not exist, or where a
// general user holds no grant, refuses the login with GridDB's code. The program is
// databases.c; see test/support/griddb-c-client.ts for the build.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { getStore } from '../../../lib/client/store-factory.ts';
import { runProgram } from '../../support/griddb-c-client.ts';
import { cProgramOnNodeForSuite } from './c-program-on-node.ts';

const DATABASES_C = fileURLToPath(new URL('databases.c', import.meta.url));
const CLUSTER = 'myCluster';

describe('GridDB C client: databases on a store node', { timeout: 20 * 60_000 }, () => {
  const suite = cProgramOnNodeForSuite(DATABASES_C);

  const run = async (user: string, password: string, database: string, value: string) => {
    const result = await runProgram(suite.program,
      [String(suite.node.transactionPort), CLUSTER, user, password, database, value]);
    assert.equal(result.code, 0, result.stderr);
    return result.stdout.trim();
  };

  it('keeps "Shared" apart in public and db1; refuses a missing database and a user without a grant', async (t) => {
    if (suite.skip !== undefined) return t.skip(suite.skip);
    const admin = getStore({
      notificationMember: `127.0.0.1:${suite.node.transactionPort}`, clusterName: CLUSTER,
      username: 'admin', password: 'admin', failoverTimeout: 1, requestTimeoutMs: 10_000,
    });
    try {
      await admin.sql('CREATE DATABASE db1');
      await admin.sql("CREATE USER reader IDENTIFIED BY 'r'");
      await admin.sql("CREATE USER nobody IDENTIFIED BY 'n'");
      await admin.sql('GRANT SELECT ON db1 TO reader');
    } finally {
      await admin.close();
    }
    assert.equal(await run('admin', 'admin', 'public', '10'), 'value 10');
    assert.equal(await run('admin', 'admin', 'db1', '-'), 'no container', 'public\'s "Shared" is not db1\'s');
    assert.equal(await run('admin', 'admin', 'db1', '100'), 'value 100');
    assert.equal(await run('admin', 'admin', 'public', '-'), 'value 10');
    assert.equal(await run('reader', 'r', 'db1', '-'), 'value 100');
    assert.equal(await run('reader', 'r', 'db1', '5'), 'error 10099', 'SELECT does not write');
    assert.equal(await run('admin', 'admin', 'db1', '-'), 'value 100');
    assert.match(await run('nobody', 'n', 'db1', '-'), /^error \d+$/);
    assert.match(await run('admin', 'admin', 'nodb', '-'), /^error \d+$/);
  });
});
