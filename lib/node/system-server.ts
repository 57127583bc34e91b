// The system service (`/system/servicePort`, 10040): the HTTP API the operating commands call
// (spec/surface.md §7.3), with HTTP Basic authentication of an administrator user.
//
//   GET  /node/stat                  the status report (node-status.ts); answered during recovery
//   GET  /node/host                  this node's addresses (gs_config)
//   GET  /node/partition             partitions and their owner (gs_partition), ?partitionNo=,
//                                    ?loss=true (only lost ones: none while the node serves)
//   POST /node/join                  ?clusterName=&minNodeNum=: a serving node is already its own
//                                    cluster's master, so a valid request changes nothing
//   POST /node/leave                 501: a single node cannot leave its cluster of one
//   POST /cluster/stop               501: a single node's cluster stops only with the node
//   POST /node/checkpoint            a checkpoint now (gs_checkpoint --manual)
//   POST /node/periodicCheckpoint    ?enable=true|false (gs_checkpoint --on / --off)
//   POST /node/shutdown              ?force=true|false: answer, then a clean stop (gs_stopnode)
//   GET  /node/config                every online parameter's value, {group: {name: value}}
//   GET  /node/config/<group>/<name> one online parameter's value (gs_paramconf --show), as JSON
//   POST /node/config/<group>/<name> sets it: the body is the value as JSON ("512MB"), applied
//                                    now, not written to gs_node.json (gs_paramconf --set)
//   POST /node/backup                ?backupName=: starts an online backup into
//                                    <backupPath>/<backupName> (gs_backup); ?mode= other than
//                                    full is refused (400): incremental backups are not taken
//   GET  /node/backup                the running or last backup since the start: name, status
//                                    (P, OK, NG), times, copiedBytes of totalBytes; {} before any
//   GET  /node/trace                 {"levels": {category: level}}: the event log's least levels
//   POST /node/trace                 ?category=&level=: one category's level from now on, not
//                                    saved (gs_logconf; gs_node.json `/trace` is read at start)
//   GET  /node/log                   the newest event log lines, as a JSON array of strings
//                                    (gs_logs): ?length= (1 to EVENT_LOG_RECENT_LINE_COUNT_MAX,
//                                    default 30), lines with ?searchStr= (and ?searchStr2=) and
//                                    without ?ignoreStr=, among the lines in the last
//                                    EVENT_LOG_RECENT_BYTES_MAX bytes of the current file
//
// Errors are JSON `{"errorStatus": <n>, "reason": "..."}` as GridDB's: 401 without a valid admin
// user (every user of the password file, `gs#` ones included), 400 for a bad
// parameter (errorStatus 100 for a cluster name that is not the node's, as GridDB's) and, except
// /node/stat, while the node is still recovering; 501 for what needs a cluster of several nodes. Requests are small:
// bodies over SYSTEM_REQUEST_BYTES_MAX are refused, and idle connections are closed.

import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import {
  EVENT_LOG_RECENT_BYTES_MAX, EVENT_LOG_RECENT_LINE_COUNT_DEFAULT, EVENT_LOG_RECENT_LINE_COUNT_MAX,
} from '../base/limits.ts';
import { EVENT_LOG_LEVELS, type EventLogLevel } from '../io/event-log.ts';
import { isStorageError } from '../base/errors.ts';
import type { BackupProgress } from './node-backup.ts';
import type { NodeEndpoint } from './node-status.ts';
import { findOnlineParameter, ONLINE_PARAMETERS } from './online-parameters.ts';

/** The largest request body; no request of this API needs more than a few bytes. */
export const SYSTEM_REQUEST_BYTES_MAX = 64 * 1024;
/** What POST /node/leave and /cluster/stop answer (HTTP 501): a store node is a cluster of one. */
export const SINGLE_NODE_REASON = 'clustering is not supported: this node is a cluster of one ' +
  'and stops only with the node (gs_stopnode)';
/** A connection idle this long is closed. */
export const SYSTEM_CONNECTION_IDLE_MS = 30_000;

/** What the system service asks of the node it serves. */
export interface SystemServiceNode {
  /** Still recovering: everything but /node/stat is refused. */
  readonly recovering: boolean;
  /** True when the user is an administrator and the password is theirs. */
  verifyAdministrator(user: string, password: string): boolean;
  statusReport(): Promise<Record<string, unknown>>;
  host(): Record<string, unknown>;
  partitions(partitionNo: number | undefined): Promise<Array<Record<string, unknown>>>;
  partitionNum: number;
  /** `/cluster/clusterName`: the only cluster this node is a member of. */
  readonly clusterName: string;
  /** Starts a checkpoint; resolves when it is done (the request does not wait for it). */
  checkpoint(): Promise<void>;
  setPeriodicCheckpoint(enabled: boolean): Promise<void>;
  /** An online parameter's current value (online-parameters.ts: its unit-free form). */
  onlineParameter(name: string): number;
  /** Applies an online parameter's value, already checked. */
  setOnlineParameter(name: string, value: number): Promise<void>;
  /** Starts a backup; a StorageError when it cannot (a bad name, one running, the name taken). */
  startBackup(name: string): Promise<void>;
  /** The running or last backup. */
  backupProgress(): BackupProgress | undefined;
  /** Stops the node; called after the answer is sent. */
  shutdown(force: boolean): void;
  /** The event log's categories and their least levels. */
  traceLevels(): Record<string, EventLogLevel>;
  /** One category's least level from now on (a category of traceLevels()). */
  setTraceLevel(category: string, level: EventLogLevel): void;
  /** The whole event log lines in the last `bytesMax` bytes of its current file, oldest first. */
  eventLogTail(bytesMax: number): string[];
  /** Where background failures go (the event log). */
  onBackgroundError(what: string, error: unknown): void;
}

export class SystemServer {
  private readonly app: FastifyInstance;

  constructor(private readonly node: SystemServiceNode) {
    this.app = Fastify({
      bodyLimit: SYSTEM_REQUEST_BYTES_MAX,
      connectionTimeout: SYSTEM_CONNECTION_IDLE_MS,
      keepAliveTimeout: 5_000,
      logger: false,
    });
    this.routes();
  }

  async listen(endpoint: NodeEndpoint): Promise<NodeEndpoint> {
    await this.app.listen({ host: endpoint.address, port: endpoint.port });
    const address = this.app.server.address();
    if (address === null || typeof address === 'string') return endpoint;
    return { address: address.address, port: address.port };
  }

  async close(): Promise<void> {
    await this.app.close();
  }

  private routes(): void {
    const { app, node } = this;
    app.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
    app.addHook('onRequest', async (request, reply) => {
      if (!this.authorized(request)) {
        void reply.code(401).header('WWW-Authenticate', 'Basic realm="store"')
          .send({ errorStatus: 401, reason: 'authentication failed' });
        return reply;
      }
      if (node.recovering && request.url.split('?')[0] !== '/node/stat') {
        void reply.code(400).send({ errorStatus: 400, reason: 'command not executed, under recovering' });
        return reply;
      }
      return undefined;
    });
    app.setNotFoundHandler((request, reply) => {
      void reply.code(404).send({ errorStatus: 404, reason: `no such command: ${request.method} ${request.url}` });
    });
    app.setErrorHandler((error: { statusCode?: number; message?: string }, _request, reply) => {
      const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500
        ? error.statusCode : 500;
      void reply.code(status).send({ errorStatus: status, reason: error.message ?? 'error' });
    });
    app.get('/node/stat', async () => node.statusReport());
    app.get('/node/host', async () => node.host());
    app.get('/node/partition', async (request, reply) => {
      const query = queryOf(request);
      const loss = booleanParameter(query['loss'], false);
      if (loss === undefined) return badRequest(reply, 'loss must be true or false');
      const text = query['partitionNo'];
      let partitionNo: number | undefined;
      if (text !== undefined) {
        partitionNo = /^\d+$/.test(text) ? Number(text) : Number.NaN;
        if (!Number.isSafeInteger(partitionNo) || partitionNo >= node.partitionNum) {
          return badRequest(reply, `partitionNo must be a whole number from 0 to ${node.partitionNum - 1}`);
        }
      }
      // A serving node owns every partition: none is lost.
      if (loss) return [];
      return node.partitions(partitionNo);
    });
    app.post('/node/join', async (request, reply) => {
      const query = queryOf(request);
      const clusterName = query['clusterName'];
      if (clusterName === undefined || clusterName === '') {
        return badRequest(reply, 'clusterName is required');
      }
      if (clusterName !== node.clusterName) {
        return reply.code(400).send({ errorStatus: 100,
          reason: `the cluster name ${clusterName} is not this node's (${node.clusterName})` });
      }
      const minNodeNum = query['minNodeNum'] ?? '1';
      if (!/^\d+$/.test(minNodeNum)) return badRequest(reply, 'minNodeNum must be a whole number');
      if (Number(minNodeNum) > 1) {
        return reply.code(501).send({ errorStatus: 501,
          reason: `a cluster of ${minNodeNum} nodes: ${SINGLE_NODE_REASON}` });
      }
      return {};
    });
    const singleNode = async (_request: FastifyRequest, reply: FastifyReply) =>
      reply.code(501).send({ errorStatus: 501, reason: SINGLE_NODE_REASON });
    app.post('/node/leave', singleNode);
    app.post('/cluster/stop', singleNode);
    app.post('/node/checkpoint', async () => {
      node.checkpoint().catch((error: unknown) => node.onBackgroundError('checkpoint', error));
      return {};
    });
    app.post('/node/periodicCheckpoint', async (request, reply) => {
      const enable = booleanParameter(queryOf(request)['enable'], true);
      if (enable === undefined) return badRequest(reply, 'enable must be true or false');
      await node.setPeriodicCheckpoint(enable);
      return {};
    });
    app.get('/node/config', async () => {
      const groups: Record<string, Record<string, string>> = {};
      for (const parameter of ONLINE_PARAMETERS) {
        groups[parameter.group] ??= {};
        groups[parameter.group]![parameter.name] =
          parameter.format(node.onlineParameter(parameter.name));
      }
      return groups;
    });
    const onlineParameterOf = (request: FastifyRequest, reply: FastifyReply) => {
      const { group, name } = request.params as { group: string; name: string };
      const found = findOnlineParameter(name);
      if ('reason' in found) return void badRequest(reply, found.reason);
      if (found.parameter.group !== group) {
        return void badRequest(reply, `the parameter ${name} is in the group ` +
          `${found.parameter.group}, not ${group}`);
      }
      return found.parameter;
    };
    app.get('/node/config/:group/:name', async (request, reply) => {
      const parameter = onlineParameterOf(request, reply);
      if (parameter === undefined) return reply;
      return JSON.stringify(parameter.format(node.onlineParameter(parameter.name)));
    });
    app.post('/node/config/:group/:name', async (request, reply) => {
      const parameter = onlineParameterOf(request, reply);
      if (parameter === undefined) return reply;
      let text: unknown = request.body;
      try {
        // Fastify has parsed a JSON body already; any other body is JSON text or the value.
        const json = request.headers['content-type']?.startsWith('application/json') === true;
        if (typeof text === 'string' && !json) text = JSON.parse(text) as unknown;
      } catch {
        // Not JSON: the body is the value itself.
      }
      const value = parameter.parse(text);
      if (value === undefined) {
        return badRequest(reply, `${parameter.group}/${parameter.name}: ${JSON.stringify(text)} ` +
          `is not ${parameter.acceptedForm}`);
      }
      await node.setOnlineParameter(parameter.name, value);
      return {};
    });
    app.post('/node/backup', async (request, reply) => {
      const { backupName, mode } = queryOf(request);
      if (mode !== undefined && mode !== 'full') {
        return badRequest(reply, `the backup mode ${mode} is not supported: this node takes ` +
          'full backups only');
      }
      try {
        await node.startBackup(backupName ?? '');
      } catch (error) {
        if (isStorageError(error) && error.code === 'CONFIG_INVALID') {
          return badRequest(reply, error.message);
        }
        throw error;
      }
      return {};
    });
    app.get('/node/backup', async () => node.backupProgress() ?? {});
    app.get('/node/trace', async () => ({ levels: node.traceLevels() }));
    app.post('/node/trace', async (request, reply) => {
      const { category, level } = queryOf(request);
      const categories = Object.keys(node.traceLevels());
      if (category === undefined || !categories.includes(category)) {
        // Not the list itself: it has recoveryManager, and a reason with `recover` in it reads
        // as "under recovering" to the commands (tools/operating-command.ts).
        return badRequest(reply, `unknown trace category ${category ?? '(none)'}: GET /node/trace ` +
          '(gs_logconf) lists them');
      }
      if (level === undefined || !isEventLogLevel(level)) {
        return badRequest(reply, `unknown trace level ${level ?? '(none)'}: one of ` +
          EVENT_LOG_LEVELS.join(', '));
      }
      node.setTraceLevel(category, level);
      return {};
    });
    app.get('/node/log', async (request, reply) => {
      const query = queryOf(request);
      const lengthText = query['length'] ?? String(EVENT_LOG_RECENT_LINE_COUNT_DEFAULT);
      const length = /^\d+$/.test(lengthText) ? Number(lengthText) : 0;
      if (length < 1 || length > EVENT_LOG_RECENT_LINE_COUNT_MAX) {
        return badRequest(reply, `length must be a whole number from 1 to ${EVENT_LOG_RECENT_LINE_COUNT_MAX}`);
      }
      const wanted = [query['searchStr'], query['searchStr2']]
        .filter((text): text is string => text !== undefined && text !== '');
      const ignored = query['ignoreStr'];
      const lines = node.eventLogTail(EVENT_LOG_RECENT_BYTES_MAX).filter((line) =>
        wanted.every((text) => line.includes(text)) &&
        (ignored === undefined || ignored === '' || !line.includes(ignored)));
      return lines.slice(-length);
    });
    app.post('/node/shutdown', async (request, reply) => {
      const force = booleanParameter(queryOf(request)['force'], false);
      if (force === undefined) return badRequest(reply, 'force must be true or false');
      reply.raw.once('finish', () => node.shutdown(force));
      return {};
    });
  }

  private authorized(request: FastifyRequest): boolean {
    const header = request.headers.authorization;
    if (header === undefined || !header.startsWith('Basic ')) return false;
    const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) return false;
    return this.node.verifyAdministrator(decoded.slice(0, colon), decoded.slice(colon + 1));
  }
}

function queryOf(request: FastifyRequest): Record<string, string | undefined> {
  const query = request.query;
  if (query === null || typeof query !== 'object') return {};
  const result: Record<string, string | undefined> = {};
  for (const [key, value] of Object.entries(query as Record<string, unknown>)) {
    result[key] = typeof value === 'string' ? value : undefined;
  }
  return result;
}

function booleanParameter(text: string | undefined, absent: boolean): boolean | undefined {
  if (text === undefined) return absent;
  if (text === 'true') return true;
  if (text === 'false') return false;
  return undefined;
}

function isEventLogLevel(text: string): text is EventLogLevel {
  return (EVENT_LOG_LEVELS as readonly string[]).includes(text);
}

function badRequest(reply: FastifyReply, reason: string) {
  return reply.code(400).send({ errorStatus: 400, reason });
}
