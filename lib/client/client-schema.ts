// What the client keeps for a container it talks to: its info as the node sent it, the schema rows
// are encoded with, and the validators that turn an application's row or key into the canonical
// values the row codec writes. The checks are the engine's own (lib/schema/row-validate.ts), so a
// row the client accepts is one the node accepts, and a bad one fails here with the same error
// (TYPE_MISMATCH, NULL_NOT_ALLOWED, …) before anything is sent.

import { StorageError } from '../base/errors.ts';
import { STORE_BLOCK_SIZES_BYTES, blockSizeLimits, type BlockSizeLimits } from '../base/limits.ts';
import type { Row, RowKey } from '../schema/column-type.ts';
import type { ContainerSchema } from '../schema/container-schema.ts';
import { containerPartitionId } from '../schema/partition-hash.ts';
import { keyValidator, rowValidator } from '../schema/row-validate.ts';
import type { SchemaRef } from '../protocol/wire-refs.ts';
import { containerSchemaOf, type ContainerInfo } from '../protocol/wire-schema.ts';

export interface ContainerModel {
  readonly info: ContainerInfo;
  readonly schema: ContainerSchema;
  readonly ref: SchemaRef;
  /** Canonical copies of the application's rows; the rows given are not changed. */
  rows(input: readonly unknown[]): Row[];
  key(input: unknown): RowKey;
}

/** The limits of the node's block size (the largest ones when the node names an unknown size). */
export function limitsOf(storeBlockSizeBytes: number): BlockSizeLimits {
  const known = (STORE_BLOCK_SIZES_BYTES as readonly number[]).includes(storeBlockSizeBytes);
  return blockSizeLimits(known ? storeBlockSizeBytes
    : STORE_BLOCK_SIZES_BYTES[STORE_BLOCK_SIZES_BYTES.length - 1]!);
}

export function containerModel(
  info: ContainerInfo,
  node: { partitionNum: number; storeBlockSizeBytes: number },
): ContainerModel {
  const schema = containerSchemaOf(info);
  const validateRow = rowValidator(schema, limitsOf(node.storeBlockSizeBytes));
  const validateKey = keyValidator(schema);
  return {
    info,
    schema,
    ref: {
      partitionId: containerPartitionId(info.name, node.partitionNum),
      name: info.name, containerId: info.containerId, schemaVersion: info.schemaVersion,
    },
    rows: (input) => {
      if (!Array.isArray(input)) {
        throw new StorageError('ROW_INVALID', 'multiPut takes an array of rows');
      }
      return input.map((row: unknown) => validateRow(Array.isArray(row) ? row.slice() : row));
    },
    key: (input) => validateKey(Array.isArray(input) ? input.slice() : input),
  };
}
