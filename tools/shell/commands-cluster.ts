// The cluster sub-commands (spec/surface.md §6.2) on a store node, which is a cluster of one
// (docs/operations.md "The cluster of one"): stat, config, logs, logconf and configcluster ask the
// node's system service (`$node0`, or a node of setnode) as gs_stat, gs_config, gs_logs and
// gs_logconf do; showconnection shows this shell's connection and the node's connection count.
// Starting, stopping, joining and leaving say what a single node does instead (gs_sh does not
// start processes over SSH: gs_startnode and gs_stopnode do it on the node's machine).

import { callNode, CommandError } from '../operating-command.ts';
import { expectWords, type SubCommand } from './shell-command-table.ts';
import { ShellError } from './shell-messages.ts';
import { columnsText } from './shell-output.ts';
import type { Shell } from './shell.ts';
import type { NodeDefinition } from './shell-variables.ts';

/** Event log lines `logs` prints at most. */
const LOG_LINES_MAX = 1000;
const SINGLE_NODE = 'a store node is a cluster of one: it serves as soon as it has started, and there ' +
  'is no other node to join, leave or append';

async function ask(shell: Shell, node: NodeDefinition, request: Parameters<typeof callNode>[2]): Promise<unknown> {
  try {
    return await shell.guard(callNode({ host: node.host, port: node.systemPort }, shell.requireCredentials(), request));
  } catch (error) {
    if (error instanceof CommandError) throw new ShellError(error.message);
    throw error;
  }
}

function nodeOf(shell: Shell, word: string | undefined): NodeDefinition {
  return shell.variables.node(word ?? '$node0');
}

function singleNode(name: string, usage: string, instead: string): SubCommand {
  return {
    name, usage, summary: `(${instead})`,
    run: () => Promise.reject(new ShellError(`${name}: ${SINGLE_NODE}; ${instead}.`)),
  };
}

export const CLUSTER_COMMANDS: SubCommand[] = [
  singleNode('startnode', '$node|$cluster [timeout]', 'start the node with gs_startnode on its machine'),
  singleNode('stopnode', '$node|$cluster [timeout]', 'stop the node with gs_stopnode on its machine'),
  singleNode('stopnodeforce', '$node|$cluster [timeout]', 'stop the node with gs_stopnode -f on its machine'),
  singleNode('startcluster', '$cluster [timeout]', 'nothing to do: the node serves once started'),
  singleNode('stopcluster', '$cluster [timeout]', 'stop the node with gs_stopnode'),
  singleNode('joincluster', '$cluster $node [timeout]', 'nothing to do: the node is its cluster'),
  singleNode('leavecluster', '$node [timeout]', 'stop the node with gs_stopnode instead'),
  singleNode('leaveclusterforce', '$node [timeout]', 'stop the node with gs_stopnode -f instead'),
  singleNode('appendcluster', '$cluster $node [timeout]', 'a second node cannot be added'),
  {
    name: 'stat', usage: '[$node]', summary: 'the node\'s status report (JSON, as gs_stat)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const report = await ask(shell, nodeOf(shell, input.words[0]?.text), {
        method: 'GET', path: '/node/stat', query: { detail: 'true' },
      });
      shell.io.out(JSON.stringify(report, null, 4));
    },
  },
  {
    name: 'config', usage: '[$node]', summary: 'the node\'s addresses (JSON, as gs_config)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      shell.io.out(JSON.stringify(await ask(shell, nodeOf(shell, input.words[0]?.text),
        { method: 'GET', path: '/node/host' }), null, 4));
    },
  },
  {
    name: 'logs', usage: '[$node]', summary: 'the newest lines of the node\'s event log',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const lines = await ask(shell, nodeOf(shell, input.words[0]?.text), { method: 'GET', path: '/node/log' });
      if (Array.isArray(lines)) shell.io.out(lines.slice(-LOG_LINES_MAX).join('\n'));
    },
  },
  {
    name: 'logconf', usage: '[$node] [<category> [<level>]]', summary: 'show or set the event log levels',
    async run(shell, input) {
      expectWords(input, 0, 3);
      const words = input.words.map((word) => word.text);
      const node = words[0]?.startsWith('$') === true ? nodeOf(shell, words.shift()) : nodeOf(shell, undefined);
      const [category, level] = words;
      if (category !== undefined && level !== undefined) {
        // gs_sh spells the levels ERROR, WARNING, INFO, DEBUG; the node LEVEL_ERROR and so on.
        const upper = level.toUpperCase();
        await ask(shell, node, { method: 'POST', path: '/node/trace',
          query: { category, level: upper.startsWith('LEVEL_') ? upper : `LEVEL_${upper}` } });
        return;
      }
      const answer = await ask(shell, node, { method: 'GET', path: '/node/trace' }) as { levels?: Record<string, string> };
      const levels = Object.entries(answer.levels ?? {})
        .filter(([name]) => category === undefined || name === category);
      if (category !== undefined && levels.length === 0) throw new ShellError(`There is no log category ${category}.`);
      shell.io.out(columnsText(levels.map(([name, value]) => [name, value]), [32]));
    },
  },
  {
    name: 'configcluster', usage: '[$cluster]', summary: 'the cluster\'s status (the node alone)',
    async run(shell, input) {
      expectWords(input, 0, 1);
      const cluster = shell.variables.cluster(input.words[0]?.text ?? '$cluster0');
      const node = nodeOf(shell, cluster.nodes[0] === undefined ? undefined : `$${cluster.nodes[0]}`);
      const report = await ask(shell, node, { method: 'GET', path: '/node/stat' }) as {
        cluster?: { clusterName?: string; designatedCount?: number; activeCount?: number; nodeStatus?: string };
      };
      const active = report.cluster?.nodeStatus === 'ACTIVE';
      shell.io.out([
        `Name                  : ${cluster.variable}`,
        `ClusterName           : ${report.cluster?.clusterName ?? cluster.clusterName}`,
        `Designated Node Count : ${report.cluster?.designatedCount ?? 1}`,
        `Active Node Count     : ${report.cluster?.activeCount ?? 0}`,
        `ClusterStatus         : ${active ? 'SERVICE_STABLE' : 'INIT_WAIT'}`,
        '', 'Nodes:', '  Name    Role Host:Port              Status', '-'.repeat(49),
        `  ${(cluster.nodes[0] ?? 'node0').padEnd(8)}  ${active ? 'M' : '-'}  ` +
        `${`${node.host}:${node.systemPort}`.padEnd(21)}  ${active ? 'SERVICING' : 'WAIT'}`,
      ].join('\n'));
    },
  },
  {
    name: 'showconnection', usage: '', summary: 'this shell\'s connection and the node\'s connection count',
    async run(shell, input) {
      expectWords(input, 0);
      const target = shell.connection.current;
      if (target === undefined) {
        shell.io.out('Not connected.');
        return;
      }
      const lines = [
        `Cluster     : ${target.clusterVariable} (${target.cluster.clusterName}, ${target.cluster.members})`,
        `Database    : ${target.database}`, `User        : ${target.credentials.user}`,
        `Since       : ${new Date(target.sinceMs).toISOString()}`,
      ];
      const node = shell.variables.get(target.cluster.nodes[0] ?? 'node0');
      if (node !== undefined && typeof node !== 'string' && node.kind === 'node') {
        const report = await ask(shell, node, { method: 'GET', path: '/node/stat' }) as {
          performance?: { numConnection?: number };
        };
        lines.push(`Connections : ${report.performance?.numConnection ?? '?'} on the node`);
      }
      shell.io.out(lines.join('\n'));
    },
  },
  {
    name: 'showevent', usage: '', summary: 'the node\'s running events (not listed by a store node)',
    run: () => Promise.reject(new ShellError('showevent: a store node does not list its running events; ' +
      'gs_stat shows its counts (numTxn, numSession).')),
  },
];
