// What SQL statements run against: every container is a table. The engine implements it
// (lib/engine/sql-database.ts) over a Store; the unit tests use the same one on a simulated disk.
// Changes of one statement go through one transaction on one table, committed together or not at
// all (the engine's per-container transactions).

import type { Row, RowKey, Value } from '../schema/column-type.ts';
import type {
  ColumnSchema, ContainerDefinition, ContainerSchema, IndexDefinition, IndexSelector,
} from '../schema/container-schema.ts';
import type { SqlTable } from './exec/table-source.ts';
import type { SqlMetatableName } from './meta/metatables.ts';
import type { SqlValue } from './value.ts';

export interface SqlTableTransaction {
  get(key: RowKey): Promise<Row | undefined>;
  put(rows: readonly Row[]): Promise<void>;
  remove(key: RowKey): Promise<boolean>;
}

export interface SqlView {
  readonly name: string;
  readonly definition: string;
}

export interface SqlDatabase {
  /** A table's schema by name (any case); undefined when there is none. */
  tableSchema(name: string): ContainerSchema | undefined;
  /** Committed rows of a table, for the join's cost; undefined when not known. */
  tableRowCount?(name: string): number | undefined;
  /** Reads a table's committed rows (lib/sql/exec/table-source.ts). */
  table(name: string): SqlTable;
  /** A metatable's rows, read now: containers, indexes, and what the node reports. */
  metatableRows(name: SqlMetatableName): readonly (readonly SqlValue[])[];
  /** A view by name (any case): its name as created and its SELECT's text; undefined when none. */
  view(name: string): SqlView | undefined;
  /** CONTAINER_EXISTS when a container or a view has the name. */
  createView(view: SqlView): Promise<void>;
  /** False when no view has the name. */
  dropView(name: string): Promise<boolean>;
  createTable(definition: ContainerDefinition): Promise<void>;
  dropTable(name: string): Promise<boolean>;
  createIndex(table: string, index: IndexDefinition): Promise<boolean>;
  dropIndex(table: string, selector: IndexSelector): Promise<number>;
  addColumn(table: string, column: ColumnSchema): Promise<void>;
  renameColumn(table: string, columns: { fromName: string; toName: string }): Promise<void>;
  /**
   * ALTER TABLE … DROP PARTITION FOR (value): drops the data partitions of an interval table whose
   * range holds `value` (a value of the partitioning column); how many went.
   */
  dropPartition(table: string, value: Value): Promise<number>;
  /** Runs `change` in one transaction on `table`: committed when it resolves, aborted when it throws. */
  transaction<T>(table: string, change: (txn: SqlTableTransaction) => Promise<T>): Promise<T>;
  /**
   * Waits one turn of the event loop of the thread the statement runs in, so its other work
   * (commits, a cancel) runs: the executor calls it after each slice of work (exec/work-slice.ts).
   */
  yieldTurn(): Promise<void>;
}
