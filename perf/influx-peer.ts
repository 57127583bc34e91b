// The InfluxDB peer of the client ingest: a benchmark's own influxd (InfluxDB 1.x, Debian package
// `influxdb`) on a temporary directory, written to through its HTTP line protocol
// (POST /write?db=…&precision=ms) as TSBS's InfluxDB loader does. Found on PATH; when it is not
// installed the workload runs the store side alone and says the peer was skipped.
//
// Started with the config of influx-line-protocol.ts, ready once /ping answers 204, stopped with
// SIGTERM by its pid (SIGKILL if it lingers). Its log goes to influxd.log beside its data.

import { spawn } from 'node:child_process';
import {
  accessSync, closeSync, createWriteStream, constants, mkdirSync, openSync, readFileSync, writeFileSync,
} from 'node:fs';
import { Agent, request } from 'node:http';
import { delimiter, join } from 'node:path';
import { assert } from '../lib/base/assert.ts';
import { OwnedChild, freePorts } from './child-processes.ts';
import { influxConfigText } from './influx-line-protocol.ts';

const INFLUXD = 'influxd';
/** From spawn to the first 204 of /ping. */
const INFLUX_READY_MS_MAX = 60_000;
const PING_INTERVAL_MS = 100;
/** One write or query; InfluxDB's own write timeout is 10 s. */
const REQUEST_TIMEOUT_MS = 120_000;
const LOG_TAIL_BYTES = 2000;

/** The influxd executable on PATH, or undefined. */
export function influxdPath(pathVariable = process.env['PATH'] ?? ''): string | undefined {
  for (const directory of pathVariable.split(delimiter)) {
    if (directory.length === 0) continue;
    const candidate = join(directory, INFLUXD);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

export interface InfluxSeries {
  readonly tags?: Record<string, string>;
  readonly columns: string[];
  readonly values: unknown[][];
}

interface HttpReply {
  status: number;
  body: string;
}

export class InfluxPeer {
  private readonly agent: Agent;

  private constructor(
    private readonly owned: OwnedChild,
    private readonly httpPort: number,
    private readonly logPath: string,
    connectionCount: number,
  ) {
    // Keep-alive connections, at most one per concurrent writer: TSBS's workers each hold one.
    this.agent = new Agent({ keepAlive: true, maxSockets: connectionCount });
  }

  /** influxd's process id, for its CPU time (process-cpu.ts). */
  get pid(): number {
    return this.owned.child.pid!;
  }

  /** Starts influxd on `root` (made if missing, else empty) and waits until it answers /ping. */
  static async start(
    executable: string,
    root: string,
    connectionCount: number,
  ): Promise<InfluxPeer> {
    const [httpPort, rpcPort] = await freePorts(2);
    mkdirSync(root, { recursive: true });
    const configPath = join(root, 'influxdb.conf');
    writeFileSync(configPath, influxConfigText({ root, httpPort: httpPort!, rpcPort: rpcPort! }));
    const logPath = join(root, 'influxd.log');
    const logFd = openSync(logPath, 'a');
    let owned: OwnedChild;
    try {
      const child = spawn(executable, ['-config', configPath],
        { cwd: root, stdio: ['ignore', logFd, logFd] });
      owned = new OwnedChild(child, 'influxd');
    } finally {
      closeSync(logFd);
    }
    const peer = new InfluxPeer(owned, httpPort!, logPath, connectionCount);
    try {
      await peer.waitReady();
      return peer;
    } catch (error) {
      await peer.stop();
      throw error;
    }
  }

  async createDatabase(database: string): Promise<void> {
    await this.query(`CREATE DATABASE "${database}"`);
  }

  async dropDatabase(database: string): Promise<void> {
    await this.query(`DROP DATABASE "${database}"`);
  }

  /** One write of line-protocol `body`, acknowledged (204) after InfluxDB's WAL fsync. */
  async write(database: string, body: Buffer): Promise<void> {
    const reply = await this.http('POST',
      `/write?db=${encodeURIComponent(database)}&precision=ms`, body);
    if (reply.status !== 204) {
      throw new Error(`influxd write: HTTP ${reply.status}: ${reply.body.slice(0, 500)}`);
    }
  }

  /** Points of `measurement` in `database` (the count of its usage_user field). */
  async pointCount(database: string, measurement: string): Promise<number> {
    const result = await this.query(`SELECT count(usage_user) FROM "${measurement}"`, database);
    const value = (result as { series?: Array<{ values?: unknown[][] }> }).series?.[0]
      ?.values?.[0]?.[1];
    return typeof value === 'number' ? value : 0;
  }

  /** The series of one InfluxQL SELECT: each with its tags and value rows (time first). */
  async select(statement: string, database: string): Promise<InfluxSeries[]> {
    const result = await this.query(statement, database) as { series?: InfluxSeries[] };
    return result.series ?? [];
  }

  /**
   * One query as a reader sends it: GET /query with times as epoch milliseconds; the whole
   * answer's text, unparsed (HTTP errors throw; the caller checks the answer after its timing).
   */
  async queryText(database: string, statement: string): Promise<string> {
    const reply = await this.http('GET', `/query?db=${encodeURIComponent(database)}&epoch=ms` +
      `&q=${encodeURIComponent(statement)}`);
    if (reply.status !== 200) {
      throw new Error(`influxd ${statement}: HTTP ${reply.status}: ${reply.body.slice(0, 500)}`);
    }
    return reply.body;
  }

  /**
   * The answer of `statement` as InfluxDB streams it (`chunked=true`, CSV: a header line, then a
   * line per point: name, tags, time in ns, fields) into the file at `path`: how a user exports
   * rows through InfluxDB's HTTP API. Resolves with the bytes written.
   */
  exportCsv(database: string, statement: string, path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const outgoing = request({
        host: '127.0.0.1', port: this.httpPort, method: 'GET', agent: this.agent,
        path: `/query?db=${encodeURIComponent(database)}&chunked=true&chunk_size=10000` +
          `&q=${encodeURIComponent(statement)}`,
        headers: { accept: 'application/csv' },
      }, (response) => {
        if (response.statusCode !== 200) {
          response.resume();
          reject(new Error(`influxd export ${statement}: HTTP ${response.statusCode}`));
          return;
        }
        const out = createWriteStream(path);
        let bytes = 0;
        response.on('data', (chunk: Buffer) => {
          bytes += chunk.length;
          if (!out.write(chunk)) {
            response.pause();
            out.once('drain', () => response.resume());
          }
        });
        response.on('end', () => out.end(() => resolve(bytes)));
        response.on('error', reject);
        out.on('error', reject);
      });
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  async stop(): Promise<void> {
    this.agent.destroy();
    await this.owned.stop('SIGTERM');
  }

  /** The first statement's result; throws on an HTTP error or an error in the result. */
  private async query(statement: string, database?: string): Promise<unknown> {
    const db = database === undefined ? '' : `&db=${encodeURIComponent(database)}`;
    const reply = await this.http('POST', `/query?q=${encodeURIComponent(statement)}${db}`);
    const parsed = JSON.parse(reply.body) as
      { results?: Array<{ error?: string }>; error?: string };
    const first = parsed.results?.[0];
    const error = parsed.error ?? first?.error;
    if (reply.status !== 200 || error !== undefined || first === undefined) {
      throw new Error(`influxd ${statement}: HTTP ${reply.status}: ${error ?? reply.body}`);
    }
    return first;
  }

  private async waitReady(): Promise<void> {
    const deadlineMs = performance.now() + INFLUX_READY_MS_MAX;
    while (performance.now() < deadlineMs) {
      if (!this.owned.running) throw new Error(`influxd exited at start: ${this.logTail()}`);
      try {
        if ((await this.http('GET', '/ping')).status === 204) return;
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, PING_INTERVAL_MS));
    }
    throw new Error(`influxd did not answer /ping within ${INFLUX_READY_MS_MAX} ms: ` +
      this.logTail());
  }

  private logTail(): string {
    const text = readFileSync(this.logPath, 'utf8');
    return JSON.stringify(text.slice(-LOG_TAIL_BYTES));
  }

  private http(method: 'GET' | 'POST', path: string, body?: Buffer): Promise<HttpReply> {
    assert(path.startsWith('/'));
    return new Promise((resolve, reject) => {
      const outgoing = request({
        host: '127.0.0.1', port: this.httpPort, method, path, agent: this.agent,
        timeout: REQUEST_TIMEOUT_MS,
        headers: body === undefined ? {} : { 'content-length': body.length },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({
          status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8'),
        }));
        response.on('error', reject);
      });
      outgoing.on('timeout', () => outgoing.destroy(new Error(`influxd ${path}: timed out`)));
      outgoing.on('error', reject);
      outgoing.end(body);
    });
  }
}
