// Branded identifiers: two numbers of different meaning cannot be swapped by accident.

export type PartitionId = number & { readonly __brand: 'PartitionId' };
export type PartitionGroupId = number & { readonly __brand: 'PartitionGroupId' };
export type ContainerId = number & { readonly __brand: 'ContainerId' };
export type BlockId = number & { readonly __brand: 'BlockId' };
export type SessionId = number & { readonly __brand: 'SessionId' };
/** Per-partition log sequence number: +1 per xlog record. A bigint, so it never loses precision. */
export type Lsn = bigint & { readonly __brand: 'Lsn' };
/** Checkpoint generation: names the xlog/cplog file pair `<pId>_<generation>`. */
export type Generation = number & { readonly __brand: 'Generation' };

export const partitionId = (n: number) => n as PartitionId;
export const partitionGroupId = (n: number) => n as PartitionGroupId;
export const containerId = (n: number) => n as ContainerId;
export const blockId = (n: number) => n as BlockId;
export const sessionId = (n: number) => n as SessionId;
export const lsn = (n: bigint) => n as Lsn;
export const generation = (n: number) => n as Generation;
