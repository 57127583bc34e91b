// The client's store (GridDB's GridStore): containers by name, and the operations across
// containers. It connects on first use; `connect()` does so at once, to check the properties.
//
// The client computes each container's partition itself (lib/schema/partition-hash.ts, with the
// partition count the node gave at AUTH) and sends it; a node that disagrees refuses the request.
// Every write carries a statement id from one counter per store, so a retry after a broken
// connection is applied once (client-pool.ts).

import { StorageError, isStorageError } from '../base/errors.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerDefinition } from '../schema/container-schema.ts';
import { normalizeName } from '../schema/names.ts';
import { containerPartitionId } from '../schema/partition-hash.ts';
import type { AuthReply } from '../protocol/messages-connection.ts';
import {
  CONTAINER_DROP, CONTAINER_INFO, CONTAINER_LIST, CONTAINER_PUT,
} from '../protocol/messages-container.ts';
import { PING } from '../protocol/messages-connection.ts';
import { QUERY } from '../protocol/messages-query.ts';
import { MULTI_GET, MULTI_PUT, type RowPredicate } from '../protocol/messages-row.ts';
import { AUTO_COMMIT_SESSION_ID, type NameRef } from '../protocol/wire-refs.ts';
import { KeyBatch, RowBatch } from '../protocol/wire-rows.ts';
import type { ContainerInfo } from '../protocol/wire-schema.ts';
import { ClientContainer, type StoreLink } from './client-container.ts';
import type { ClientTransport } from './client-transport.ts';
import { ConnectionPool } from './client-pool.ts';
import { ClientQuery } from './client-query.ts';
import { clientCancelSql, clientSql, type SqlOptions, type SqlParameter, type SqlRowSet } from './client-sql.ts';
import {
  resolveClientOptions, type ClientOptions, type StoreProperties,
} from './client-properties.ts';
import { containerModel, type ContainerModel } from './client-schema.ts';

/** Names asked for per CONTAINER_LIST request. */
const CONTAINER_NAMES_PAGE_SIZE = 10_000;

/** Rows of one container for multiGet: these keys, or a key range (both ends included). */
export type RowKeyPredicate =
  | { keys: readonly RowKey[] }
  | { start?: RowKey; finish?: RowKey; limit?: number };

export class ClientStore implements StoreLink {
  readonly options: ClientOptions;
  readonly pool: ConnectionPool;
  private statementId = 0;
  /** Models of containers met, for the operations across containers. */
  private readonly models = new Map<string, ContainerModel>();

  /** `transport`: how to reach the node when not by TCP (client-transport.ts). */
  constructor(properties: StoreProperties, transport?: ClientTransport) {
    this.options = transport === undefined ? resolveClientOptions(properties)
      : { ...resolveClientOptions(properties), transport };
    this.pool = new ConnectionPool(this.options);
  }

  /** Connects and authenticates now (otherwise the first request does). */
  async connect(): Promise<void> {
    await this.pool.request(PING, {});
  }

  nextStatementId(): number {
    this.statementId++;
    return this.statementId;
  }

  /**
   * Creates a container, or returns the existing one when its schema is the same. With
   * `modifiable`, an existing container gains the columns the definition adds at its end.
   */
  async putContainer(
    definition: ContainerDefinition,
    modifiable = false,
  ): Promise<ClientContainer> {
    const name = nameCheck((definition as { name?: unknown } | null)?.name);
    const node = await this.node();
    let definitionJson: string;
    try {
      definitionJson = JSON.stringify(definition);
    } catch (error) {
      throw new StorageError('INVALID_SCHEMA', `container ${JSON.stringify(name)}: the ` +
        'definition cannot be sent as JSON', { cause: error });
    }
    const info = await this.pool.request(CONTAINER_PUT, {
      statement: { sessionId: AUTO_COMMIT_SESSION_ID, statementId: this.nextStatementId() },
      partitionId: containerPartitionId(name, node.partitionNum),
      definitionJson, modifiable,
    });
    return new ClientContainer(this, this.remember(info, node));
  }

  /** The container, or undefined when there is none by that name. */
  async getContainer(name: string): Promise<ClientContainer | undefined> {
    const model = await this.modelFetch(name);
    return model === undefined ? undefined : new ClientContainer(this, model);
  }

  /**
   * A TQL query on the container named, in auto-commit, without asking for its schema first (one
   * round trip less than getContainer(name).query(tql)): a query names its container by name,
   * and the answer carries its own columns. No container by that name: CONTAINER_NOT_FOUND when
   * fetched. The web API's /tql runs its statements so.
   */
  async queryByName(name: string, tql: string): Promise<ClientQuery> {
    const ref = await this.nameRef(name);
    return new ClientQuery(name, tql, (options) => this.pool.exchange(QUERY,
      { sessionId: AUTO_COMMIT_SESSION_ID, ref, tql, ...options }));
  }

  /**
   * Runs one SQL statement (docs/sql.md) with its `?` parameters: a SELECT's rows as a row set,
   * or, for DML and DDL, updateCount.
   */
  async sql(text: string, parameters: readonly SqlParameter[] = [], options: SqlOptions = {}):
    Promise<SqlRowSet> {
    return clientSql(this.pool, text, parameters, options);
  }

  /**
   * Cancels a running SQL statement of any connection by its query id (QUERY_ID of "#sqls"): it
   * ends with SQL_CANCELLED at its next batch. False when the node runs none of that id.
   */
  async cancelSql(queryId: string): Promise<boolean> {
    return clientCancelSql(this.pool, queryId);
  }

  async getContainerInfo(name: string): Promise<ContainerInfo | undefined> {
    return (await this.modelFetch(name))?.info;
  }

  /** Drops a container; false when there was none. */
  async dropContainer(name: string): Promise<boolean> {
    const ref = await this.nameRef(name);
    this.models.delete(normalizeName(name));
    return this.pool.request(CONTAINER_DROP, {
      statement: { sessionId: AUTO_COMMIT_SESSION_ID, statementId: this.nextStatementId() }, ref,
    });
  }

  /** Every container name of the database, in code-unit order. */
  async getContainerNames(): Promise<string[]> {
    const names: string[] = [];
    for (;;) {
      const page = await this.pool.request(CONTAINER_LIST,
        { offset: names.length, limit: CONTAINER_NAMES_PAGE_SIZE });
      names.push(...page.names);
      if (page.names.length === 0 || names.length >= page.total) return names;
    }
  }

  /**
   * Puts rows into several containers in one request. Each container's rows are one auto-commit
   * statement; they are applied in order, and a failure stops the rest (as GridDB, not atomic).
   */
  async multiPut(entries: Readonly<Record<string, readonly Row[]>> |
    ReadonlyMap<string, readonly Row[]>): Promise<void> {
    const list = entriesOf(entries);
    await this.withSchemaRetry(list.map(([name]) => name), async (models) => {
      await this.pool.request(MULTI_PUT, {
        statement: { sessionId: AUTO_COMMIT_SESSION_ID, statementId: this.nextStatementId() },
        entries: list.map(([, rows], i) => ({
          ref: models[i]!.ref, rows: RowBatch.of(models[i]!.schema, models[i]!.rows(rows)),
        })),
      });
    });
  }

  /** Reads rows of several containers in one request, by keys or key range per container. */
  async multiGet(predicates: Readonly<Record<string, RowKeyPredicate>> |
    ReadonlyMap<string, RowKeyPredicate>): Promise<Map<string, Row[]>> {
    const list = entriesOf(predicates);
    return this.withSchemaRetry(list.map(([name]) => name), async (models) => {
      const batches = await this.pool.request(MULTI_GET, {
        sessionId: AUTO_COMMIT_SESSION_ID,
        entries: list.map(([, predicate], i) =>
          ({ ref: models[i]!.ref, predicate: predicateOf(models[i]!, predicate) })),
      });
      if (batches.length !== list.length) {
        throw new StorageError('PROTOCOL_ERROR',
          `${batches.length} answers to ${list.length} containers`);
      }
      return new Map(list.map(([name], i) => [name, batches[i]!.decode(models[i]!.schema)]));
    });
  }

  async close(): Promise<void> {
    this.pool.close();
  }

  async modelRefresh(name: string): Promise<ContainerModel> {
    const model = await this.modelFetch(name);
    if (model === undefined) {
      throw new StorageError('CONTAINER_NOT_FOUND',
        `container ${JSON.stringify(name)} does not exist`);
    }
    return model;
  }

  async modelOfInfo(info: ContainerInfo): Promise<ContainerModel> {
    return this.remember(info, await this.node());
  }

  private async modelFetch(name: string): Promise<ContainerModel | undefined> {
    const node = await this.node();
    const info = await this.pool.request(CONTAINER_INFO, await this.nameRef(name));
    if (info === undefined) {
      this.models.delete(normalizeName(name));
      return undefined;
    }
    return this.remember(info, node);
  }

  private async modelOf(name: string): Promise<ContainerModel> {
    return this.models.get(normalizeName(nameCheck(name))) ?? this.modelRefresh(name);
  }

  /** Runs `body` with the models of `names`; once more with fresh ones after SCHEMA_CHANGED. */
  private async withSchemaRetry<T>(
    names: string[],
    body: (models: ContainerModel[]) => Promise<T>,
  ): Promise<T> {
    const models: ContainerModel[] = [];
    for (const name of names) models.push(await this.modelOf(name));
    try {
      return await body(models);
    } catch (error) {
      if (!isStorageError(error, 'SCHEMA_CHANGED')) throw error;
      const fresh: ContainerModel[] = [];
      for (const name of names) fresh.push(await this.modelRefresh(name));
      return body(fresh);
    }
  }

  private remember(info: ContainerInfo, node: AuthReply): ContainerModel {
    const model = containerModel(info, node);
    this.models.set(normalizeName(info.name), model);
    return model;
  }

  private async nameRef(name: string): Promise<NameRef> {
    nameCheck(name);
    const node = await this.node();
    return { partitionId: containerPartitionId(name, node.partitionNum), name };
  }

  /** What the node said at AUTH; connects first when needed. */
  private async node(): Promise<AuthReply> {
    if (this.pool.node === undefined) await this.pool.acquire();
    return this.pool.node!;
  }
}

function nameCheck(name: unknown): string {
  if (typeof name !== 'string' || name.length === 0) {
    throw new StorageError('INVALID_NAME', 'a container name must be a non-empty string');
  }
  return name;
}

function entriesOf<T>(
  entries: Readonly<Record<string, T>> | ReadonlyMap<string, T>,
): Array<[string, T]> {
  if (entries instanceof Map) return [...(entries as ReadonlyMap<string, T>).entries()];
  if (typeof entries !== 'object' || entries === null) {
    throw new StorageError('ROW_INVALID', 'expected an object or a Map of container names');
  }
  return Object.entries(entries as Readonly<Record<string, T>>);
}

function predicateOf(model: ContainerModel, predicate: RowKeyPredicate): RowPredicate {
  if (typeof predicate !== 'object' || predicate === null) {
    throw new StorageError('ROW_INVALID', `container ${JSON.stringify(model.info.name)}: a ` +
      'predicate is { keys } or { start, finish, limit }');
  }
  if (model.schema.rowKeyColumnCount === 0) {
    throw new StorageError('KEY_REQUIRED', `container ${JSON.stringify(model.info.name)} has no ` +
      'row key to get rows by');
  }
  if ('keys' in predicate) {
    if (!Array.isArray(predicate.keys)) {
      throw new StorageError('ROW_INVALID', 'predicate keys must be an array');
    }
    return { kind: 'keys', keys: KeyBatch.of(model.schema, predicate.keys.map(model.key)) };
  }
  const limit = predicate.limit ?? 0;
  if (!Number.isSafeInteger(limit) || limit < 0) {
    throw new StorageError('ROW_INVALID',
      `a predicate limit must be a whole number, not ${String(limit)}`);
  }
  const bound = (key: RowKey | undefined) =>
    KeyBatch.of(model.schema, key === undefined ? [] : [model.key(key)]);
  return { kind: 'range', start: bound(predicate.start), finish: bound(predicate.finish), limit };
}
