// gs_sh's cluster sub-commands in script mode against a real node process
// (tools/shell/commands-cluster.ts): stat, config, logs, logconf and configcluster ask the node of
// $node0 (GS_HOME's) or of setnode; showconnection; the sub-commands that need several nodes say
// what a single node does instead; showevent; and the errors (no user, no such node variable, a
// node that does not answer).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { freePorts } from '../../node/node-process.ts';
import { CONNECT, runScriptFile, shellNodeForSuite } from './shell-test-helpers.ts';

describe('gs_sh cluster sub-commands', { timeout: 300_000 }, () => {
  const shell = shellNodeForSuite();

  it('stat, config, logs, logconf, configcluster and showconnection ask the node', async () => {
    const run = await runScriptFile([...CONNECT,
      'stat',
      `setnode mynode 127.0.0.1 ${shell.node.systemPort}`,
      'config $mynode',
      'logs',
      'logconf $node0 connection INFO',
      'logconf connection',
      'configcluster',
      'showconnection',
    ], shell.env);
    assert.equal(run.code, 0, run.stderr);
    const out = run.stdout;
    assert.match(out, /\n {4}"cluster": \{\n/);
    assert.match(out, /"clusterName": "myCluster"/);
    assert.match(out, /"nodeStatus": "ACTIVE"/);
    assert.match(out, /\n {4}"self": \{\n {8}"address": "127\.0\.0\.1",\n/);
    assert.match(out, /\nconnection +LEVEL_INFO\n/);
    assert.match(out, new RegExp(['Name                  : cluster0', 'ClusterName           : myCluster',
      'Designated Node Count : 1', 'Active Node Count     : 1', 'ClusterStatus         : SERVICE_STABLE', '',
      'Nodes:', '  Name    Role Host:Port              Status', '-{49}',
      `  node0     M  127\\.0\\.0\\.1:${shell.node.systemPort} +SERVICING`].join('\\n')));
    assert.match(out, new RegExp(`Cluster     : cluster0 \\(myCluster, 127\\.0\\.0\\.1:${shell.node.transactionPort}\\)\\n` +
      'Database    : public\\nUser        : admin\\nSince       : \\d{4}-.*Z\\nConnections : [1-9]\\d* on the node\\n'));
  });

  it('the sub-commands of a cluster of several nodes say what a single node does', async () => {
    const names = ['startnode $node0', 'stopnode $node0', 'stopnodeforce $node0', 'startcluster $cluster0',
      'stopcluster $cluster0', 'joincluster $cluster0 $node0', 'leavecluster $node0', 'leaveclusterforce $node0',
      'appendcluster $cluster0 $node0', 'sync 127.0.0.1 10040', 'showevent'];
    const run = await runScriptFile(['errexit false', ...names], shell.env);
    assert.equal(run.code, 1);
    const errors = run.stderr.split('\n').filter((line) => line !== '');
    assert.equal(errors.length, names.length, run.stderr);
    errors.slice(0, 9).forEach((line, i) => {
      assert.ok(line.startsWith(`${names[i]!.split(' ')[0]}: a store node is a cluster of one`), line);
    });
    assert.match(errors[9]!, /^sync: a store node is a cluster of one: define it with setnode and setcluster/);
    assert.match(errors[10]!, /^showevent: a store node does not list its running events/);
  });

  it('says what is wrong: no user, no such node, a node that does not answer, bad definitions', async () => {
    const [deadPort] = await freePorts(1);
    const run = await runScriptFile([
      'errexit false',
      'stat',
      'setuser admin admin',
      'stat $nosuch',
      'set plain text',
      'stat $plain',
      `setnode dead 127.0.0.1 ${deadPort}`,
      'stat $dead',
      'setnode n2 127.0.0.1 99999',
      'setcluster c2 myCluster FIXED_LIST nohostport',
      'logconf $node0 NOSUCH INFO',
    ], shell.env);
    assert.equal(run.code, 1);
    const errors = run.stderr.split('\n').filter((line) => line !== '').map((line) => line.replace(/ \(\S+:\d+\)$/, ''));
    assert.deepEqual(errors.slice(0, 6), [
      'D20201: The username and password is not set. Set them by setuser sub command.',
      'The variable "nosuch" is not defined. Define it with set nosuch <value>.',
      '"text" is not a node variable: define one with setnode <name> <host> <systemPort>.',
      `A00104: Failed to connect to the node.(node=127.0.0.1:${deadPort})`,
      '"99999" is not a port.',
      'setcluster: "nohostport" is not host:port.',
    ]);
    assert.match(errors[6]!, /^A00100: Request error occurred\. \(400: unknown trace category NOSUCH/);
  });
});
