// The web API's configuration: the properties file format, every settings key with its default
// and its errors, repository.json in its three modes and its errors, and the home with the
// default files written on the first start (from the node's own configuration).

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { StorageError } from '../../../lib/base/errors.ts';
import { MiB } from '../../../lib/base/units.ts';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { parseProperties } from '../../../lib/webapi/config/properties-file.ts';
import { clusterLocator, readRepository } from '../../../lib/webapi/config/repository.ts';
import { parseTimeZone } from '../../../lib/webapi/config/time-zone.ts';
import { prepareWebApiHome } from '../../../lib/webapi/config/webapi-home.ts';
import {
  readWebApiSettings, WEBAPI_SETTINGS_DEFAULT,
} from '../../../lib/webapi/config/webapi-settings.ts';

const settingsOf = (text: string) => readWebApiSettings(parseProperties(text), 'test.properties');

function configError(run: () => unknown, ...parts: RegExp[]): void {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof StorageError);
    assert.equal(error.code, 'CONFIG_INVALID');
    for (const part of parts) assert.match(error.message, part);
    return true;
  });
}

describe('properties file', () => {
  it('reads Java properties: separators, comments, continuations, escapes', () => {
    const properties = parseProperties([
      '# a comment', '! another', '', 'a=1', 'b : two', 'c three', '  d=with \\', '    more',
      'e=tab\\there\\u0041', 'f=', 'a=last', 'g\\=h=x',
    ].join('\n'));
    assert.deepEqual(Object.fromEntries(properties), {
      a: 'last', b: 'two', c: 'three', d: 'with more', e: 'tab\thereA', f: '', 'g=h': 'x',
    });
  });
});

describe('web API settings', () => {
  it('defaults to GridDB\'s values (the code\'s where the documentation differs)', () => {
    const { settings, warnings } = settingsOf('');
    assert.deepEqual(settings, WEBAPI_SETTINGS_DEFAULT);
    assert.equal(settings.port, 8081);
    assert.equal(settings.maxLimit, 1_000_000);
    assert.equal(settings.maxQueryNum, 10);
    assert.equal(settings.maxResponseSizeBytes, 20 * MiB);
    assert.equal(settings.maxTotalResponseSizeBytes, 2048 * MiB);
    assert.equal(settings.requestBodySizeBytesMax, 500 * MiB);
    assert.deepEqual(warnings, []);
  });

  it('reads every key', () => {
    const { settings } = settingsOf([
      'server.port=9090', 'server.address=0.0.0.0', 'failoverTimeout=0', 'transactionTimeout=60',
      'containerCacheSize=5', 'maxResponseSize=100', 'maxRequestSize=2',
      'maxTotalResponseSize=3000',
      'loginTimeout=1', 'maxQueryNum=100', 'maxLimit=10', 'timeZone=+09:00',
      'applicationName=meters', 'server.max-http-header-size=16KB',
      'spring.servlet.multipart.max-file-size=10MB',
      'spring.servlet.multipart.max-request-size=1024',
      'authenticationMethod=INTERNAL', 'sslMode=DISABLED', 'blobPath=/tmp',
      'putBatchSize=64KB', 'requestBodyTimeout=5', 'maxTotalRequestBodySize=10MB',
      'maxQueuedRequests=0', 'maxConnections=8', 'basePath=griddb',
    ].join('\n'));
    assert.deepEqual(settings, {
      basePaths: ['griddb'],
      port: 9090, address: '0.0.0.0', failoverTimeoutS: 0, transactionTimeoutS: 60,
      containerCacheSize: 5, maxResponseSizeBytes: 100 * MiB, maxRequestSizeBytes: 2 * MiB,
      maxTotalResponseSizeBytes: 3000 * MiB, loginTimeoutS: 1, maxQueryNum: 100, maxLimit: 10,
      timeZone: { kind: 'offset', offsetMinutes: 540 }, applicationName: 'meters',
      httpHeaderSizeBytesMax: 16 * 1024, uploadFileSizeBytesMax: 10 * MiB,
      requestBodySizeBytesMax: 1024, requestJsonBodySizeBytesMax: 2 * MiB,
      putBatchSizeBytes: 64 * 1024, requestBodyTimeoutS: 5,
      totalRequestBodySizeBytesMax: 10 * MiB, queuedRequestCountMax: 0, connectionCountMax: 8,
    });
    const bodies = settingsOf('maxRequestBodySize=3MB').settings;
    assert.equal(bodies.requestJsonBodySizeBytesMax, 3 * MiB);
    // The body budget follows maxRequestBodySize unless it is set.
    assert.equal(bodies.totalRequestBodySizeBytesMax, 4 * 3 * MiB);
    configError(() => settingsOf('maxConnections=0'),
      /property 'maxConnections' can not smaller than 1\./);
  });

  it('reads basePath as a list of first path segments; store and griddb by default', () => {
    assert.deepEqual(settingsOf('').settings.basePaths, ['store', 'griddb']);
    assert.deepEqual(settingsOf('basePath=griddb, store ,api_2').settings.basePaths,
      ['griddb', 'store', 'api_2']);
    for (const bad of ['basePath=a/b', 'basePath=store,store', 'basePath=a,b,c,d,e',
      'basePath=store,']) {
      configError(() => settingsOf(bad), /property 'basePath' is invalid\./);
    }
  });

  it('reports every bad key at once, in GridDB\'s words', () => {
    configError(() => settingsOf(['maxLimit=0', 'maxQueryNum=101', 'server.port=http',
      'maxResponseSize=4096', 'timeZone=Tokyo', 'authenticationMethod=LDAP'].join('\n')),
    /test\.properties/, /property 'maxLimit' can not smaller than 1\./,
    /property 'maxQueryNum' can not larger than 100\./, /property 'server\.port' is invalid\./,
    /property 'maxResponseSize' can not larger than 'maxSystemGetRowSize' 2048\./,
    /property 'timeZone' is invalid\./, /property 'authenticationMethod' is invalid/);
    configError(() => settingsOf('maxResponseSize=30\nmaxSystemGetRowSize=20'),
      /'maxResponseSize' can not larger than 'maxSystemGetRowSize' 20/);
  });

  it('warns about keys it does not know', () => {
    assert.deepEqual(settingsOf('maxlimit=5').warnings,
      ["test.properties: property 'maxlimit' is not known; ignored"]);
  });

  it('reads time zones as GridDB does', () => {
    assert.deepEqual(parseTimeZone('Z'), { kind: 'offset', offsetMinutes: 0 });
    assert.deepEqual(parseTimeZone('-0530'), { kind: 'offset', offsetMinutes: -330 });
    assert.deepEqual(parseTimeZone('AUTO'), { kind: 'local' });
    assert.deepEqual(parseTimeZone('auto'), { kind: 'local' });
    for (const bad of ['UTC', '+9:00', '+19:00', '+01:60', '']) {
      assert.equal(parseTimeZone(bad), undefined, bad);
    }
  });
});

describe('repository.json', () => {
  it('reads the three modes; mode defaults to MULTICAST', () => {
    const { repository, warnings } = readRepository({
      header: { version: 1 }, nodes: [],
      clusters: [
        { name: 'a', mode: 'FIXED_LIST', transactionMember: '127.0.0.1:10001,[::1]:10002',
          sqlMember: '127.0.0.1:20001', providerUrl: null },
        { name: 'b', address: '239.0.0.1', port: 31999, jdbcAddress: '239.0.0.1',
          jdbcPort: 41999, transactionMember: '', sqlMember: '', providerUrl: null },
        { name: 'c', mode: 'PROVIDER', providerUrl: 'http://provider.example/nodes.json' },
      ],
    }, 'repository.json');
    assert.deepEqual(warnings, []);
    assert.deepEqual(repository.clusters.map((c) => c.mode),
      ['FIXED_LIST', 'MULTICAST', 'PROVIDER']);
    assert.deepEqual(repository.clusters.map(clusterLocator), [
      { notificationMember: '127.0.0.1:10001,[::1]:10002' },
      { notificationAddress: '239.0.0.1', notificationPort: 31999 },
      { notificationProvider: 'http://provider.example/nodes.json' },
    ]);
  });

  it('names every bad member', () => {
    configError(() => readRepository([], 'r.json'), /r\.json must hold a JSON object/);
    configError(() => readRepository({}, 'r.json'), /"clusters" must be an array/);
    configError(() => readRepository({ clusters: [
      5,
      { name: 'a', mode: 'FIXED_LIST', transactionMember: 'localhost' },
      { name: 'b', mode: 'MULTICAST', address: '239.0.0.1', port: 70000 },
      { name: 'c', mode: 'PROVIDER', providerUrl: 'ftp://x' },
      { name: 'd', mode: 'RING' },
      { mode: 'FIXED_LIST', transactionMember: '127.0.0.1:1' },
      { name: 'e', mode: 'FIXED_LIST', transactionMember: '127.0.0.1:1' },
      { name: 'e', mode: 'FIXED_LIST', transactionMember: '127.0.0.1:2' },
    ] }, 'r.json'),
    /r\.json/, /clusters\[0\] must be an object/,
    /clusters\[1\]: notificationMember entry "localhost" is not host:port/,
    /clusters\[2\]\.port must be a port number/,
    /clusters\[3\]\.providerUrl must be an http/, /clusters\[4\]\.mode must be/,
    /clusters\[5\]\.name is required/, /cluster "e" is listed twice/);
  });

  it('warns about members it does not know', () => {
    const { warnings } = readRepository({ clusters: [{ name: 'a', mode: 'FIXED_LIST',
      transactionMember: '127.0.0.1:1', colour: 'red' }], extra: 1 }, 'r.json');
    assert.deepEqual(warnings, ['r.json: member "extra" is not known',
      'r.json: member clusters[0].colour is not known']);
  });
});

describe('web API home', () => {
  const roots: string[] = [];
  after(() => {
    for (const root of roots) rmSync(root, { recursive: true, force: true });
  });
  const newHome = () => {
    const root = mkdtempSync(join(tmpdir(), 'store-webapi-home-'));
    roots.push(root);
    return root;
  };
  const prepare = (env: Record<string, string>) => prepareWebApiHome({
    env, cwd: '/', toolsDirectory: '/nonexistent', fileSystem: new NodeFileSystem() });

  it('writes repository.json for the node of GS_HOME and the settings file, once', async () => {
    const home = newHome();
    mkdirSync(join(home, 'conf'));
    writeFileSync(join(home, 'conf', 'gs_cluster.json'),
      JSON.stringify({ cluster: { clusterName: 'plant7' } }));
    writeFileSync(join(home, 'conf', 'gs_node.json'), JSON.stringify({
      transaction: { serviceAddress: '0.0.0.0', servicePort: 12001 },
      sql: { servicePort: 22001 } }));
    const first = await prepare({ GS_HOME: home });
    assert.equal(first.webApiHome, join(home, 'webapi'));
    assert.deepEqual(first.createdFiles, [join(home, 'webapi', 'conf', 'repository.json'),
      join(home, 'webapi', 'conf', 'store_webapi.properties')]);
    assert.deepEqual(JSON.parse(readFileSync(first.createdFiles[0]!, 'utf8')), {
      clusters: [{ name: 'plant7', mode: 'FIXED_LIST', transactionMember: '127.0.0.1:12001',
        sqlMember: '127.0.0.1:22001', providerUrl: null }] });
    assert.deepEqual(first.settings, WEBAPI_SETTINGS_DEFAULT);
    writeFileSync(first.createdFiles[1]!, 'server.port=9999\n');
    const second = await prepare({ GS_HOME: home });
    assert.deepEqual(second.createdFiles, []);
    assert.equal(second.settings.port, 9999);
  });

  it('falls back to GridDB\'s defaults without a node config; GS_WEBAPI_HOME wins', async () => {
    const home = newHome();
    const webApiHome = join(newHome(), 'elsewhere');
    const prepared = await prepare({ GS_HOME: home, GS_WEBAPI_HOME: webApiHome });
    assert.equal(prepared.webApiHome, webApiHome);
    assert.deepEqual(prepared.repository.clusters, [{ name: 'myCluster', mode: 'FIXED_LIST',
      transactionMember: '127.0.0.1:10001', sqlMember: '127.0.0.1:20001' }]);
  });

  it('refuses a bad repository.json or settings file, naming it', async () => {
    const home = newHome();
    mkdirSync(join(home, 'webapi', 'conf'), { recursive: true });
    writeFileSync(join(home, 'webapi', 'conf', 'repository.json'), '{"clusters": [');
    await assert.rejects(prepare({ GS_HOME: home }), (error: unknown) =>
      error instanceof StorageError && error.code === 'CONFIG_INVALID' &&
      /repository\.json is not valid JSON/.test(error.message));
    writeFileSync(join(home, 'webapi', 'conf', 'repository.json'),
      '{"clusters": [{"name": "x", "mode": "FIXED_LIST"}]}');
    await assert.rejects(prepare({ GS_HOME: home }),
      /clusters\[0\]\.transactionMember is required/);
    writeFileSync(join(home, 'webapi', 'conf', 'repository.json'), '{"clusters": []}');
    writeFileSync(join(home, 'webapi', 'conf', 'store_webapi.properties'), 'maxLimit=-1');
    await assert.rejects(prepare({ GS_HOME: home }),
      /store_webapi\.properties: property 'maxLimit' can not smaller than 1/);
  });
});
