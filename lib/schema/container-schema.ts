// Container schemas: what a caller asks for (ContainerDefinition) and what the catalog keeps
// (ContainerSchema, validated and normalised by schema-validate.ts).

import type { ColumnType, TimePrecision } from './column-type.ts';
import type { TablePartitioning } from './table-partitioning.ts';

export type ContainerType = 'COLLECTION' | 'TIME_SERIES';
export type IndexType = 'TREE' | 'SPATIAL';

export interface ColumnSchema {
  /** Spelling as created; lookups ignore case. */
  name: string;
  type: ColumnType;
  array: boolean;
  /** Row key columns are always notNull. */
  notNull: boolean;
  /** TIMESTAMP columns only; MILLISECOND unless given. */
  timePrecision?: TimePrecision;
}

export interface IndexSchema {
  name: string;
  /** Column positions, in index order. */
  columnIndexes: number[];
  type: IndexType;
}

export interface ContainerSchema {
  /** Spelling as created; lookups ignore case. */
  name: string;
  type: ContainerType;
  columns: ColumnSchema[];
  /** Leading columns that form the row key: 0 (no key, collections only), 1, or up to 16. */
  rowKeyColumnCount: number;
  /** Data affinity hint; `#unique` gives the container blocks of its own. */
  dataAffinity?: string;
  indexes: IndexSchema[];
  /** +1 on every schema change (add or rename column). */
  schemaVersion: number;
  /** A partitioned table (table-partitioning.ts): it holds no rows, its data partitions do. */
  partitioning?: TablePartitioning;
  /** A data partition: the name of its partitioned table. */
  partitionOf?: string;
  /**
   * A view (SQL CREATE VIEW, lib/sql/run-view.ts): a name in the container namespace that holds no
   * columns and no rows, only its SELECT's text, expanded where a query names it. GridDB keeps a
   * view as a container too (CONTAINER_ATTR_VIEW); the NoSQL interfaces do not see it.
   */
  view?: { readonly definition: string };
}

/** What createIndex accepts (checked member by member); type TREE when absent. */
export interface IndexDefinition {
  columnNames: string[];
  type?: string;
  name?: string;
}

/** What dropIndex accepts: every member given must match. */
export interface IndexSelector {
  name?: string;
  columnNames?: string[];
  type?: string;
}

/** What createContainer accepts. Loose on purpose: it is checked member by member. */
export interface ContainerDefinition {
  name: string;
  type: ContainerType;
  columns: Array<{
    name: string;
    type: string;
    array?: boolean;
    notNull?: boolean;
    timePrecision?: string;
  }>;
  /** Either a count of leading key columns, or `true` for one key column (the common case). */
  rowKey?: boolean | number;
  dataAffinity?: string;
  indexes?: Array<{ name?: string; columnNames: string[]; type: string }>;
  // Options that GridDB 5.0 removed; present only so they can be refused with a clear error.
  timeSeriesProperties?: { compressionMethod?: string; rowExpirationTime?: number; [key: string]: unknown };
  rowExpiration?: unknown;
  triggers?: unknown[];
  /** Given by SQL only (lib/sql/run-ddl.ts, lib/engine/table-partitions.ts); no wire form carries them. */
  partitioning?: TablePartitioning;
  partitionOf?: string;
}
