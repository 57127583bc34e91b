// Every limit of the engine lives here; their relations are asserted when this module loads.
// Limits that depend on the block size (as in GridDB's data_store_v4 tables) are computed by
// blockSizeLimits(); the rest are constants.

import { assert } from './assert.ts';
import { KiB, MiB } from './units.ts';

export const PARTITION_NUM_MIN = 1;
export const PARTITION_NUM_MAX = 10_000;
export const CONCURRENCY_MIN = 1;
export const CONCURRENCY_MAX = 128;

/** Block sizes the config parser accepts. 32KB is accepted by GridDB's code though its docs omit it. */
export const STORE_BLOCK_SIZES_BYTES = [
  32 * KiB, 64 * KiB, 1 * MiB, 4 * MiB, 8 * MiB, 16 * MiB, 32 * MiB,
] as const;

export const COLUMN_NAME_LENGTH_MAX = 256;
export const DATA_AFFINITY_LENGTH_MAX = 8;
export const ROW_KEY_COLUMN_COUNT_MAX = 16;
/** Fixed-length part of a row (null bitmap excluded): 59 KB, as GridDB. */
export const ROW_FIXED_PART_BYTES_MAX = 59 * KiB;
export const BLOB_SIZE_BYTES_MAX = 1024 * MiB - 1;

/** One xlog record; a multi-put larger than this is rejected, never split behind the user's back. */
export const XLOG_RECORD_BYTES_MAX = 64 * MiB;
/** Rows in one multi-put request. */
export const MULTI_PUT_ROW_COUNT_MAX = 1_000_000;
/** Rows one scan returns at most; callers page with a key bound beyond this. */
export const SCAN_ROW_COUNT_MAX = 10_000_000;

/** Committed records between append and apply, per partition group: the pipeline's bound. */
export const PIPELINE_RECORDS_IN_FLIGHT_MAX = 4096;
export const PIPELINE_BYTES_IN_FLIGHT_MAX = 256 * MiB;

/** Sessions one store keeps open; each may hold one transaction per container. */
export const SESSION_COUNT_MAX = 65_536;
/** Changes one open transaction may hold in its private write set. */
export const TRANSACTION_WRITE_SET_ROW_COUNT_MAX = 1_000_000;
/** Lock waiters per lock: more is a runaway client, rejected with LIMIT_EXCEEDED. */
export const LOCK_WAITER_COUNT_MAX = 10_000;
/**
 * Runs of one fetch(forUpdate): after each lock wait the query runs again (its rows may have
 * changed meanwhile); a result still changing after this many is LOCK_TIMEOUT.
 */
export const QUERY_FOR_UPDATE_PASS_COUNT_MAX = 16;

/** xlog writer: append buffer flushed to the file at this size even before a sync is due. */
export const XLOG_WRITE_BUFFER_BYTES = 1 * MiB;

export interface BlockSizeLimits {
  blockSizeBytes: number;
  /** STRING and GEOMETRY values, UTF-8 bytes. */
  stringSizeBytesMax: number;
  arrayLengthMax: number;
  columnCountMax: number;
  indexCountMax: number;
  /** Container (and index) names, characters. */
  containerNameLengthMax: number;
}

/** GridDB's per-block-size limits (surface.md §4.6, §4.8). */
export function blockSizeLimits(blockSizeBytes: number): BlockSizeLimits {
  assert(STORE_BLOCK_SIZES_BYTES.includes(blockSizeBytes as never));
  if (blockSizeBytes === 32 * KiB) {
    return {
      blockSizeBytes, stringSizeBytesMax: 15 * KiB, arrayLengthMax: 2000, columnCountMax: 512,
      indexCountMax: 512, containerNameLengthMax: 8 * KiB,
    };
  }
  if (blockSizeBytes === 64 * KiB) {
    return {
      blockSizeBytes, stringSizeBytesMax: 31 * KiB, arrayLengthMax: 4000, columnCountMax: 1024,
      indexCountMax: 1024, containerNameLengthMax: 16 * KiB,
    };
  }
  return {
    blockSizeBytes, stringSizeBytesMax: 128 * KiB, arrayLengthMax: 65_000, columnCountMax: 32_000,
    indexCountMax: 16_000, containerNameLengthMax: 128 * KiB,
  };
}

assert(ROW_FIXED_PART_BYTES_MAX < 64 * KiB);
assert(XLOG_RECORD_BYTES_MAX <= PIPELINE_BYTES_IN_FLIGHT_MAX);
assert(XLOG_WRITE_BUFFER_BYTES <= XLOG_RECORD_BYTES_MAX);
for (const size of STORE_BLOCK_SIZES_BYTES) {
  assert(blockSizeLimits(size).stringSizeBytesMax < size);
}

/** xlog scan: bytes read per call. A larger record grows the read buffer to fit it, and no further. */
export const XLOG_READ_BUFFER_BYTES = 1 * MiB;
/** Commits of one partition group waiting for its fdatasync. A session waits for one at a time. */
export const GROUP_COMMIT_WAITER_COUNT_MAX = SESSION_COUNT_MAX;

assert(XLOG_READ_BUFFER_BYTES <= XLOG_RECORD_BYTES_MAX);

/**
 * Commit journal (wal/journal-format.ts): a commit record of at most this many payload bytes is
 * copied into the group's journal and made durable by its one fdatasync per round; a larger one
 * (a batch, whose sync is shared by its many rows anyway) syncs its own xlog instead of being
 * written twice.
 */
export const JOURNAL_RECORD_PAYLOAD_BYTES_MAX = 64 * KiB;
/** Journal append buffer: written to the file at the next sync, or at this size. */
export const JOURNAL_WRITE_BUFFER_BYTES = 1 * MiB;
/**
 * A journal file past this size is retired at the next round: the group's xlogs are synced (the
 * file then holds nothing they lack), a new file begins and the old is deleted. Bounds the disk
 * the journal takes and the records a recovery reads from it.
 */
export const JOURNAL_FILE_BYTES_MAX = 32 * MiB;

/**
 * A journal file grows by zero-filled steps of this size, written (and synced) ahead of the records:
 * an fdatasync over bytes that overwrite allocated zeros need not also commit a new file size to
 * the file system's journal, which on ext4 makes the per-round sync cheaper.
 */
export const JOURNAL_EXTEND_BYTES = 4 * MiB;

assert(JOURNAL_RECORD_PAYLOAD_BYTES_MAX + 64 <= JOURNAL_WRITE_BUFFER_BYTES);
assert(JOURNAL_WRITE_BUFFER_BYTES <= JOURNAL_EXTEND_BYTES);
assert(JOURNAL_WRITE_BUFFER_BYTES <= JOURNAL_FILE_BYTES_MAX);
assert(GROUP_COMMIT_WAITER_COUNT_MAX >= SESSION_COUNT_MAX);

/**
 * A ByteWriter grows by doubling up to this; beyond it LIMIT_EXCEEDED. Room for one BLOB of the
 * largest size with the rest of its row; an xlog record is bounded far lower by
 * XLOG_RECORD_BYTES_MAX.
 */
export const BYTE_WRITER_CAPACITY_BYTES_MAX = 2 * 1024 * MiB;
assert(BLOB_SIZE_BYTES_MAX < BYTE_WRITER_CAPACITY_BYTES_MAX);
assert(XLOG_RECORD_BYTES_MAX <= BYTE_WRITER_CAPACITY_BYTES_MAX);

// Block layer (lib/block/).
/** Entries per node of a row-block B+tree: 64 keys of 16 8-byte columns plus ids fit a 32 KB block. */
export const BTREE_NODE_ENTRY_COUNT_MAX = 64;
/** Partly freed shared blocks each affinity group remembers for reuse (block-space.ts). */
export const SHARED_BLOCK_REUSE_COUNT_MAX = 8;
/**
 * Spare image buffers (blockSizeBytes each) a buffer pool keeps for point reads (block-space.ts).
 * Images in use are bounded by the buffer pool; a load takes a spare and the eviction it causes
 * gives one back, so a few spares spare the GC a block-sized allocation per point read.
 */
export const POINT_READ_IMAGE_SPARE_COUNT_MAX = 4;
assert(BTREE_NODE_ENTRY_COUNT_MAX * (ROW_KEY_COLUMN_COUNT_MAX * 8 + 8) < STORE_BLOCK_SIZES_BYTES[0]);

/**
 * A variable-length value whose payload is larger than blockSizeBytes / this is kept out of line,
 * in large-value blocks of its own, and its row holds a fixed-size reference (block-format.ts).
 */
export const LARGE_VALUE_INLINE_BLOCK_FRACTION = 4;
/** Blocks in one large value's chain: the largest BLOB in the smallest block size fits. */
export const LARGE_VALUE_BLOCK_COUNT_MAX = 65_536;
assert(BLOB_SIZE_BYTES_MAX / (STORE_BLOCK_SIZES_BYTES[0] / 2) < LARGE_VALUE_BLOCK_COUNT_MAX);
/**
 * How deep RowStore may split one block while merging a sorted run into it: each level halves the
 * block's rows, and a block holds fewer than 2^32 rows.
 */
export const ROW_STORE_MERGE_DEPTH_MAX = 32;

// Checkpoint layer (compaction/).
/** The file-system block: compressed slots are written in whole ones, the rest is punched. */
export const FILE_SYSTEM_BLOCK_SIZE_BYTES = 4 * KiB;
/** `/dataStore/dbFileSplitCount`: data files one partition's slots are striped over. */
export const DATA_FILE_SPLIT_COUNT_MAX = 128;
/**
 * Slots of one partition: 8 TB of 64 KB blocks, and with 32 MB blocks byte offsets still below
 * 2^53. The cplog stores slots as u64, so raising this changes no format.
 */
export const DATA_SLOT_COUNT_MAX = 2 ** 27;
/** A compressed block is stored compressed only if it saves this much (GridDB's constant too). */
export const COMPRESSION_SAVINGS_PERCENT_MIN = 10;
/** `/checkpoint/partialCheckpointInterval`: cplog generations that together map every block. */
export const PARTIAL_CHECKPOINT_INTERVAL_MAX = 1024;
/** Entries (BLOCK and FREE) in one cplog: its END record counts them in a u32. */
export const CPLOG_ENTRY_COUNT_MAX = 0xffff_ffff;
/** cplog writer: entries are buffered and written in pwrites of this size. */
export const CPLOG_WRITE_BUFFER_BYTES = 256 * KiB;
/**
 * Free space a checkpoint leaves untouched beyond what it needs, for the commits that append to
 * the xlog while it writes: below need + this, a checkpoint is skipped (checkpoint-space.ts).
 */
export const CHECKPOINT_FREE_SPACE_RESERVE_BYTES = 1 * MiB;
/**
 * Partition checkpoints of one Store writing their blocks at once, over all its groups
 * (checkpoint-gate.ts). Their writes go to the write thread, not the thread pool.
 */
export const CHECKPOINT_PARTITIONS_IN_FLIGHT_MAX = 1;
/**
 * Partition checkpoints of one Store syncing at once (data files with catalog, then the cplog
 * END), over all its groups. Each holds at most 2 of the thread pool's 4 threads (the data-file
 * fdatasync beside the catalog's fsync), and a writing one holds one more with
 * checkpointFileFlushSize: the rest stay free for the xlog's fdatasync, which a commit waits on.
 */
export const CHECKPOINT_SYNCS_IN_FLIGHT_MAX = 1;
/**
 * Between two expiry sweeps of a Store (lib/engine/partition-expiry.ts): expired rows are invisible
 * at once, so this only bounds how long their space stays taken after they expire.
 */
export const EXPIRY_SWEEP_INTERVAL_MS_DEFAULT = 60_000;
/** cplog reader: bytes read per call. Records are a few dozen bytes, so this never grows. */
export const CPLOG_READ_BUFFER_BYTES = 1 * MiB;

for (const size of STORE_BLOCK_SIZES_BYTES) {
  assert(size % FILE_SYSTEM_BLOCK_SIZE_BYTES === 0);
  assert(size >= 2 * FILE_SYSTEM_BLOCK_SIZE_BYTES); // a compressed slot must be able to save one
  assert(Number.isSafeInteger(DATA_SLOT_COUNT_MAX * size));
}
assert(COMPRESSION_SAVINGS_PERCENT_MIN > 0 && COMPRESSION_SAVINGS_PERCENT_MIN < 100);

// Configuration and the node's files (lib/config/, lib/io/).
/** A definition file (gs_cluster.json, gs_node.json) or the password file larger than this is refused. */
export const DEFINITION_FILE_BYTES_MAX = 1024 * KiB;
/** `/cluster/clusterName`, characters (surface.md §4.6). */
export const CLUSTER_NAME_LENGTH_MAX = 64;
/** Nodes in a FIXED_LIST `/cluster/notificationMember`. */
export const NOTIFICATION_MEMBER_COUNT_MAX = 1000;
/** `/transaction/connectionLimit` and `/sql/connectionLimit` (GridDB's range). */
export const CONNECTION_LIMIT_MIN = 3;
export const CONNECTION_LIMIT_MAX = 65_536;
/** Administrator user names, characters; passwords, UTF-8 bytes (surface.md §4.6). */
export const USER_NAME_LENGTH_MAX = 64;
export const PASSWORD_BYTES_MAX = 64;
/** General users of a cluster (GridDB's USER_NUM_MAX, spec §4.7). */
export const GENERAL_USER_COUNT_MAX = 128;
/** Databases of a cluster besides `public` (GridDB's DATABASE_NUM_MAX, spec §4.7). */
export const DATABASE_COUNT_MAX = 128;
/** A database name's length (spec §4.6). */
export const DATABASE_NAME_LENGTH_MAX = 64;
/**
 * The access catalog's file (lib/access/access-file.ts): every user with its digests and
 * verifier, every database with a grant to every user, as JSON, fits.
 */
export const ACCESS_FILE_BYTES_MAX = 4 * 1024 * 1024;
/** Lines of conf/password. */
export const PASSWORD_FILE_USER_COUNT_MAX = 1024;
/** `/trace/fileCount`: event log files kept. */
export const EVENT_LOG_FILE_COUNT_MAX = 1024;
/** An event log file is closed and the next one begun before it grows past this. */
export const EVENT_LOG_FILE_SIZE_BYTES_MAX = 16 * MiB;
/** One event log message, characters; longer ones are cut (a record is one line of a file). */
export const EVENT_LOG_MESSAGE_LENGTH_MAX = 8 * KiB;
/**
 * GET /node/log (gs_logs) reads at most this many bytes at the end of the current event log file,
 * and answers at most EVENT_LOG_RECENT_LINE_COUNT_MAX of its lines: the request costs the node a
 * bounded read whatever the file's size.
 */
export const EVENT_LOG_RECENT_BYTES_MAX = 1 * MiB;
export const EVENT_LOG_RECENT_LINE_COUNT_MAX = 1000;
/** gs_logs -l: lines shown when not given (GridDB's default). */
export const EVENT_LOG_RECENT_LINE_COUNT_DEFAULT = 30;
/**
 * Lines the `connection` category writes (connected, authenticated, disconnected) in one
 * CONNECTION_LOG_WINDOW_MS; past it they are counted, and one summary line says how many were
 * left out: a connection storm costs the log at most this many lines and a summary a second.
 */
export const CONNECTION_LOG_LINES_PER_WINDOW_MAX = 20;
export const CONNECTION_LOG_WINDOW_MS = 1000;
/** Connections the connection log remembers (for the duration and name on disconnect). */
export const CONNECTION_LOG_TRACKED_COUNT_MAX = 65_536;

assert(ACCESS_FILE_BYTES_MAX >= GENERAL_USER_COUNT_MAX * 512 +
  DATABASE_COUNT_MAX * (DATABASE_NAME_LENGTH_MAX + 32 + GENERAL_USER_COUNT_MAX * (USER_NAME_LENGTH_MAX + 16)));
assert(DEFINITION_FILE_BYTES_MAX >= PASSWORD_FILE_USER_COUNT_MAX * (USER_NAME_LENGTH_MAX + 66));
assert(EVENT_LOG_MESSAGE_LENGTH_MAX * 4 < EVENT_LOG_FILE_SIZE_BYTES_MAX);
assert(EVENT_LOG_MESSAGE_LENGTH_MAX * 4 < EVENT_LOG_RECENT_BYTES_MAX);
assert(EVENT_LOG_RECENT_LINE_COUNT_DEFAULT <= EVENT_LOG_RECENT_LINE_COUNT_MAX);
assert(CONNECTION_LOG_LINES_PER_WINDOW_MAX >= 1);
assert(CONNECTION_LOG_WINDOW_MS >= 1);
assert(CONNECTION_LIMIT_MIN <= CONNECTION_LIMIT_MAX);

// Client protocol on the transaction port (lib/protocol/, lib/server/, lib/client/).
/**
 * One message, its length field included: room for a multi-put as large as one xlog record plus
 * the message around it. A longer frame is a protocol error that closes its connection.
 */
export const PROTOCOL_MESSAGE_BYTES_MAX = XLOG_RECORD_BYTES_MAX + 1 * MiB;
/** A message before authentication: what an unauthenticated peer can make the node buffer. */
export const PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX = 64 * KiB;
/** `/transaction/connectionLimit` when not set (GridDB's default). */
export const CONNECTION_LIMIT_DEFAULT = 5000;
/** Requests one connection may have read and not yet answered; the node stops reading at this. */
export const CONNECTION_REQUESTS_IN_FLIGHT_MAX = 128;
/** A connection with nothing in flight and nothing received for this long is closed. */
export const CONNECTION_IDLE_TIMEOUT_MS_DEFAULT = 300_000;
/**
 * A connection must be authenticated within this, or it is closed: GridDB's
 * `/transaction/authenticationTimeoutInterval` default (5 s, range 1-300 s).
 */
export const CONNECTION_HANDSHAKE_TIMEOUT_MS_DEFAULT = 5_000;
/**
 * Connections not yet authenticated, at once, in total and from one client address
 * (`/transaction/unauthenticatedConnectionLimit`, `.../unauthenticatedConnectionLimitPerAddress`).
 * They do not count against connectionLimit, so idle or slow handshakes cannot keep authenticated
 * clients out; beyond these a new connection is closed at once. A handshake takes a round trip
 * or two, so even a host opening many pooled connections at once has few of them at a time.
 */
export const CONNECTION_UNAUTHENTICATED_LIMIT_DEFAULT = 1000;
export const CONNECTION_UNAUTHENTICATED_PER_ADDRESS_LIMIT_DEFAULT = 100;
/**
 * Reply bytes queued for one connection (written to its socket and not yet taken by the kernel,
 * plus an estimate for the replies being produced): at the soft limit the node stops reading the
 * connection and starting its requests until the client reads; over it for longer than the soft
 * time, or past the hard limit, the connection is closed (Redis's client-output-buffer-limit).
 * Sized so one reply of PROTOCOL_MESSAGE_BYTES_MAX always fits on top of the soft limit.
 */
export const CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT = 16 * MiB;
/**
 * A request that brings a page of rows (a query, a fetch, a multi-get) starts only while the
 * connection's queued reply bytes plus its own estimate (a page) stay within this, and none of its
 * replies are left unsent (the kernel's socket buffer is full: the client is behind), or nothing
 * is queued. At the default two pages are made at once for a client that keeps up, and none more
 * for one that stops reading: it holds two pages of the node's memory, not the soft limit's worth
 * (issue 12's soak). Other requests still run up to the soft limit, so a connection's writes do
 * not wait behind one or two slow queries.
 */
export const CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT = 8 * MiB;
export const CONNECTION_REPLY_HARD_LIMIT_BYTES_DEFAULT = 256 * MiB;
export const CONNECTION_REPLY_SOFT_LIMIT_TIME_MS_DEFAULT = 60_000;
/**
 * Reply bytes queued over every connection (GridDB's `/transaction/totalMessageMemoryLimit`):
 * over it, no connection with replies queued starts a request, and the connections with the most
 * queued are closed until the total is under it again.
 */
export const CONNECTION_REPLY_TOTAL_LIMIT_BYTES_DEFAULT = 1024 * MiB;
/** The smallest reply limit a setting may give: room for a page of a fetch. */
export const CONNECTION_REPLY_LIMIT_BYTES_MIN = 1 * MiB;
/** Manual-commit sessions one connection may hold open. */
export const CONNECTION_SESSION_COUNT_MAX = 1024;
/** Open query results (cursors) one connection may hold. */
export const CONNECTION_RESULT_SET_COUNT_MAX = 64;
/**
 * Results of write statements the node remembers, so that a request retried with its statement id
 * after a broken connection is answered, not applied again. The oldest are forgotten first (a
 * client retries within seconds), and each client's own oldest beyond the per-client bound, so a
 * busy client cannot push out the results another one is about to ask for again.
 */
export const STATEMENT_RESULT_COUNT_MAX = 131_072;
/** Per client: as many as it can have in flight (a full pool of full connections). */
export const STATEMENT_RESULT_COUNT_PER_CLIENT_MAX = 8192;
/** Rows one fetch returns at most, whatever fetch size the client asks for. */
export const FETCH_ROW_COUNT_MAX = 100_000;
/** A fetch stops adding rows once its reply is this large (it always carries at least one row). */
export const FETCH_REPLY_BYTES_TARGET = 4 * MiB;
/**
 * A query result the node holds encoded (lib/encoding/encoded-rows.ts) is cut into chunks of
 * about this many bytes: no single buffer grows with the result, and each chunk is let go once
 * its rows are sent.
 */
export const ENCODED_ROWS_CHUNK_BYTES = 1 * MiB;
/**
 * The memory a request runner keeps for encoding its replies (request-runner.ts) after one: room
 * for a page of a fetch (its target plus a row, rounded up by doubling); a larger one is let go.
 */
export const REPLY_WRITER_BYTES_KEPT_MAX = 2 * FETCH_REPLY_BYTES_TARGET;
/** Connections a client keeps to one node; requests are multiplexed over them. */
export const CLIENT_CONNECTION_POOL_SIZE_MAX = 64;

assert(PROTOCOL_HANDSHAKE_MESSAGE_BYTES_MAX < PROTOCOL_MESSAGE_BYTES_MAX);
assert(PROTOCOL_MESSAGE_BYTES_MAX <= BYTE_WRITER_CAPACITY_BYTES_MAX);
assert(STATEMENT_RESULT_COUNT_PER_CLIENT_MAX >=
  CLIENT_CONNECTION_POOL_SIZE_MAX * CONNECTION_REQUESTS_IN_FLIGHT_MAX);
assert(STATEMENT_RESULT_COUNT_PER_CLIENT_MAX <= STATEMENT_RESULT_COUNT_MAX);
assert(FETCH_REPLY_BYTES_TARGET * 2 <= PROTOCOL_MESSAGE_BYTES_MAX);
assert(CONNECTION_LIMIT_DEFAULT >= CONNECTION_LIMIT_MIN);
assert(CONNECTION_LIMIT_DEFAULT <= CONNECTION_LIMIT_MAX);
assert(CONNECTION_UNAUTHENTICATED_PER_ADDRESS_LIMIT_DEFAULT <=
  CONNECTION_UNAUTHENTICATED_LIMIT_DEFAULT);
assert(CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT + PROTOCOL_MESSAGE_BYTES_MAX <=
  CONNECTION_REPLY_HARD_LIMIT_BYTES_DEFAULT);
assert(CONNECTION_REPLY_HARD_LIMIT_BYTES_DEFAULT <= CONNECTION_REPLY_TOTAL_LIMIT_BYTES_DEFAULT);
assert(CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT >= CONNECTION_REPLY_LIMIT_BYTES_MIN);
assert(CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT <= CONNECTION_REPLY_SOFT_LIMIT_BYTES_DEFAULT);
assert(CONNECTION_REPLY_QUERY_LIMIT_BYTES_DEFAULT === 2 * FETCH_REPLY_BYTES_TARGET);

// TQL (lib/query/tql/).
/** Characters of one query's text. */
export const TQL_TEXT_LENGTH_MAX = 1 * MiB;
/** Nesting of one expression: parentheses, operators, function arguments. */
export const TQL_EXPRESSION_DEPTH_MAX = 256;
/** Items of one `IN (...)` list. */
export const TQL_IN_LIST_LENGTH_MAX = 10_000;
/** Arguments of one function call. */
export const TQL_FUNCTION_ARGUMENT_COUNT_MAX = 1024;
/** Keys of one ORDER BY. */
export const TQL_ORDER_BY_KEY_COUNT_MAX = 256;
/**
 * Rows one query may produce, or hold to sort, without partial execution: beyond it LIMIT_EXCEEDED
 * (add LIMIT, or use partial execution, which keeps only a fetch at a time).
 */
export const TQL_RESULT_ROW_COUNT_MAX = SCAN_ROW_COUNT_MAX;
/** Rows the executor takes from a container per call while it scans. */
export const TQL_SCAN_PAGE_ROW_COUNT = 1024;
/** Prepared TQL statements a process keeps for reuse (lib/query/tql/prepare-cache.ts). */
export const TQL_PREPARED_CACHE_SIZE = 1024;
/** Longer statement texts are prepared afresh each time, not kept. */
export const TQL_PREPARED_CACHE_TEXT_LENGTH_MAX = 4096;
/**
 * Parsed TQL texts a process keeps, whatever the container (lib/query/tql/prepare-cache.ts): a
 * statement sent to many containers of one schema is parsed once, bound per container.
 */
export const TQL_PARSED_CACHE_SIZE = 1024;
/**
 * Query result column lists a client process keeps, one object per distinct list
 * (lib/client/result-columns.ts), so a result's row codec is made once, not per query.
 */
export const CLIENT_RESULT_COLUMNS_KEPT_MAX = 256;
/** Parsed SQL statements a process keeps for reuse (lib/sql/parse-cache.ts). */
export const SQL_PARSED_CACHE_SIZE = 1024;
/** Longer SQL texts (an INSERT of many VALUES rows) are parsed afresh each time, not kept. */
export const SQL_PARSED_CACHE_TEXT_LENGTH_MAX = 4096;

assert(TQL_SCAN_PAGE_ROW_COUNT <= SCAN_ROW_COUNT_MAX);
assert(TQL_IN_LIST_LENGTH_MAX * 4 <= TQL_TEXT_LENGTH_MAX);

// Secondary indexes (lib/engine/index-*.ts).
/**
 * Index structures of a partition group may take this share of the group's part of
 * storeMemoryLimit, on top of the blocks the buffer pool keeps: an index that would grow past it
 * is dropped from memory and queries scan instead (docs/data-model.md "Secondary indexes").
 */
export const INDEX_MEMORY_SHARE_OF_STORE_MEMORY = 0.25;
/**
 * A query reads through an index while the index names at most this share of the container's rows
 * as candidates; past it a scan of the key range is cheaper than a row look-up per candidate.
 */
export const INDEX_CANDIDATE_SHARE_MAX = 0.25;
/** Below this many candidates the index is used whatever the share. */
export const INDEX_CANDIDATE_COUNT_ALWAYS = 4096;

assert(INDEX_MEMORY_SHARE_OF_STORE_MEMORY > 0 && INDEX_MEMORY_SHARE_OF_STORE_MEMORY <= 1);
assert(INDEX_CANDIDATE_SHARE_MAX > 0 && INDEX_CANDIDATE_SHARE_MAX <= 1);
assert(INDEX_CANDIDATE_COUNT_ALWAYS <= SCAN_ROW_COUNT_MAX);

// Web API (lib/webapi/).
/** Client stores the web API keeps open, one per (cluster, user, password); the least used goes. */
export const WEBAPI_STORE_POOL_SIZE_MAX = 32;
/**
 * `Authorization` headers whose parsed credentials the web API keeps (http/basic-auth.ts), so a
 * caller's next request skips the base64 decode and the password's SHA-256; the oldest goes.
 */
export const WEBAPI_CREDENTIALS_CACHED_MAX = 64;
/** The checkConnection `timeout` parameter, milliseconds (GridDB's code: "Cannot wait that long"). */
export const WEBAPI_CHECK_CONNECTION_TIMEOUT_MS_MAX = 10_000;
/** `maxQueryNum`: statements of one /tql request, at most. */
export const WEBAPI_QUERY_COUNT_MAX = 100;
/**
 * Statements of one /tql request sent to the node at once (pipelined on the store's connections):
 * their round trips overlap, while the rows held decoded at a time stay within this many results.
 */
export const WEBAPI_TQL_STATEMENTS_IN_FLIGHT_MAX = 16;
/** `maxResponseSize` and `maxRequestSize`, MB (GridDB's maxSystemGetRowSize/PutRowSize). */
export const WEBAPI_ROW_SIZE_MB_MAX = 2048;
/** `maxTotalResponseSize`, MB (GridDB's maxSystemTotalResponseSize). */
export const WEBAPI_TOTAL_RESPONSE_SIZE_MB_MAX = 4000;
/** A multi-container request names at most this many containers. */
export const WEBAPI_MULTI_CONTAINER_COUNT_MAX = 10_000;
/** Files of one BLOB zip, read or written. */
export const WEBAPI_ZIP_FILE_COUNT_MAX = 100_000;
/** The web API's settings file and repository.json are refused beyond this. */
export const WEBAPI_CONFIG_FILE_BYTES_MAX = DEFINITION_FILE_BYTES_MAX;
/** Clusters of one repository.json. */
export const WEBAPI_REPOSITORY_CLUSTER_COUNT_MAX = 1000;
/**
 * Sets of a row PUT's buffers (its row writer and number arrays: webapi/codec/rows-put-scratch.ts)
 * the web API keeps between requests, one per PUT under way at most, so that a PUT allocates none.
 */
export const WEBAPI_ROWS_PUT_SCRATCH_KEPT_COUNT_MAX = 32;
/**
 * A set whose buffers grew beyond this (a PUT of large batches) is dropped when its PUT ends, not
 * kept: the memory kept stays within COUNT_MAX × this (8 MiB), whatever bodies came.
 */
export const WEBAPI_ROWS_PUT_SCRATCH_KEPT_BYTES_MAX = 256 * KiB;

/**
 * How long past its transaction timeout the web API waits for the node's answer to one request:
 * lock waits end at the node within the transaction timeout; what has no bound there (a drop
 * waiting for open transactions) ends here, 500 REQUEST_TIMEOUT.
 */
export const WEBAPI_NODE_ANSWER_MARGIN_MS = 2_000;
/** How often the HTTP server looks for requests past the body (or header) timeout, at most. */
export const WEBAPI_TIMEOUT_CHECK_INTERVAL_MS_MAX = 1_000;
/**
 * After an answer given before its body was read, how long the web API still reads (and drops)
 * that body before closing: closing at once with unread bytes sends a reset, which can destroy
 * the answer in the client's buffers (Apache's lingering close).
 */
export const WEBAPI_CLOSE_LINGER_MS = 2_000;
/** `Retry-After` of a 503 given when the web API has no room for a request's body. */
export const WEBAPI_BUSY_RETRY_AFTER_S = 2;
/**
 * `maxTotalRequestBodySize` by default, in bodies of `maxRequestBodySize`: JSON.parse takes up
 * to about 17 times a body's size (`[{},{},...]`), so 4 bodies of 20 MB cost about 1.6 GB at
 * worst.
 */
export const WEBAPI_TOTAL_REQUEST_BODY_COUNT_DEFAULT = 4;

assert(WEBAPI_ROW_SIZE_MB_MAX <= WEBAPI_TOTAL_RESPONSE_SIZE_MB_MAX);
assert(WEBAPI_STORE_POOL_SIZE_MAX >= 1);
assert(WEBAPI_CREDENTIALS_CACHED_MAX >= 1);

/**
 * Points of one GEOMETRY part (a LINESTRING, a POLYGON ring): GridDB serialises the count as a
 * uint16 (gis_pointgeom.h), so a longer part could not be stored there either.
 */
export const GEOMETRY_PART_POINT_COUNT_MAX = 65_535;
/** Rings of one POLYGON and polygons of one POLYHEDRALSURFACE, for the same reason. */
export const GEOMETRY_PART_COUNT_MAX = 65_535;

// SQL (lib/sql/). GridDB's parser is SQLite's lemon grammar; these are SQLite's compiled-in maxima.
/** Characters of one SQL text, all its statements together (SQLITE_MAX_SQL_LENGTH). */
export const SQL_TEXT_LENGTH_MAX = 1_000_000;
/** Nesting of one expression: deeper is an error, never a stack overflow (SQLITE_MAX_EXPR_DEPTH). */
export const SQL_EXPRESSION_DEPTH_MAX = 1000;
/** `?` parameters of one statement (SQLITE_MAX_VARIABLE_NUMBER). */
export const SQL_PARAMETER_COUNT_MAX = 32_766;
/** Statements of one SQL text (the web API sends several separated by `;`). */
export const SQL_STATEMENT_COUNT_MAX = 10_000;
assert(SQL_PARAMETER_COUNT_MAX * 2 <= SQL_TEXT_LENGTH_MAX); // `?,` per parameter fits the text
/**
 * Bytes of one value a scalar SQL function makes (ZEROBLOB, RANDOMBLOB, PRINTF's width,
 * REPLACE): past it LIMIT_EXCEEDED, so one call cannot take the node's memory. A function result
 * is one row's value; a STRING or BLOB column holds at most BLOB_SIZE_BYTES_MAX anyway.
 */
export const SQL_FUNCTION_VALUE_BYTES_MAX = 64 * MiB;
assert(SQL_FUNCTION_VALUE_BYTES_MAX <= BLOB_SIZE_BYTES_MAX);
// SQL execution (lib/sql/exec/).
/** Rows of one batch the SQL executor passes between operators; a scan yields after each. */
export const SQL_BATCH_ROW_COUNT = 256;
/**
 * Work units a SQL statement does between two turns of its engine thread's event loop (work-slice.ts):
 * a unit is a row one operator handles (read, tested, grouped, emitted), a pair a join tests, a
 * comparison a sort makes or a group GROUP BY RANGE generates, each a few hundred ns at most. At the
 * end of each slice the statement waits one turn, so commits, cancels and other statements run,
 * and checks its deadline and cancellation: a slice is a few ms, whatever the operators.
 */
export const SQL_WORK_SLICE_UNIT_COUNT = 16_384;
assert(SQL_WORK_SLICE_UNIT_COUNT >= 4 * SQL_BATCH_ROW_COUNT); // a turn costs far less than a slice
/**
 * Rows a GROUP BY computed inside the scan (execute-scan-aggregate.ts) takes from the blocks in
 * one turn of the event loop. It copies no page, so a row costs a fraction of a paged row's CPU:
 * a turn of this many rows takes about as long as one of SQL_BATCH_ROW_COUNT paged rows, and a
 * commit waits no longer behind it.
 */
export const SQL_SCAN_AGGREGATE_ROW_COUNT = 1_024;
assert(SQL_SCAN_AGGREGATE_ROW_COUNT >= SQL_BATCH_ROW_COUNT);
assert(SQL_SCAN_AGGREGATE_ROW_COUNT <= SQL_WORK_SLICE_UNIT_COUNT);
/**
 * Rows of a scan's first page; each next page doubles up to SQL_BATCH_ROW_COUNT. A LIMIT 1 over
 * a filter (`WHERE hostname = ? ORDER BY ts DESC LIMIT 1`) then copies 16 rows, not 256.
 */
export const SQL_SCAN_FIRST_PAGE_ROW_COUNT = 16;
/**
 * Row-key ranges one scan reads at most: the product of the IN lists on leading key columns
 * (`hostname IN (…8…)` gives 8); past it the scan reads their hull and the filter does the rest.
 */
export const SQL_KEY_RANGE_COUNT_MAX = 4096;
/** Views read through views at most this deep when a query is expanded (lib/sql/run-view.ts). */
export const SQL_VIEW_DEPTH_MAX = 32;
/** Groups GROUP BY RANGE generates at most without a MaxGeneratedRows hint (GridDB's default). */
export const SQL_RANGE_GROUP_COUNT_MAX = 1_000_000;
/** Rows one VALUES list holds: each row is checked and held until the statement commits. */
export const SQL_VALUES_ROW_COUNT_MAX = 100_000;
/** Rows one INSERT … SELECT, UPDATE or DELETE changes: its transaction holds them all. */
export const SQL_DML_ROW_COUNT_MAX = 1_000_000;
/** Default statement timeout when a caller names none (GridDB's transactionTimeoutLimit). */
export const SQL_STATEMENT_TIMEOUT_MS_DEFAULT = 300_000;
assert(SQL_VALUES_ROW_COUNT_MAX <= SQL_DML_ROW_COUNT_MAX);
/** GridDB's /sql/workMemoryLimit default: work memory of one SQL statement. */
export const SQL_WORK_MEMORY_LIMIT_BYTES_DEFAULT = 32 * 1024 * 1024;
/**
 * Runs of correlated subqueries one statement makes (one per distinct outer row of a batch): past
 * it LIMIT_EXCEEDED, so a correlated subquery over a big table ends instead of running for hours.
 */
export const SQL_CORRELATED_RUN_COUNT_MAX = 1_000_000;

/**
 * MATCH_RECOGNIZE (lib/sql/plan/row-pattern-program.ts, lib/sql/exec/row-pattern-matcher.ts):
 * the largest bound a quantifier `{n,m}` may write, the instructions a pattern compiles to
 * (counted quantifiers are written out), and the matcher's steps for one match attempt (one start
 * row). GridDB bounds the matcher by memory only (half the work memory); a step bound also ends
 * a pattern that backtracks exponentially (`(A|B)* C` over rows no C ends) with LIMIT_EXCEEDED
 * instead of running until the timeout.
 */
export const SQL_ROW_PATTERN_QUANTIFIER_BOUND_MAX = 1000;
export const SQL_ROW_PATTERN_PROGRAM_LENGTH_MAX = 10_000;
export const SQL_ROW_PATTERN_STEP_COUNT_MAX = 10_000_000;
/** Pattern variables of one PATTERN (also bounds DEFINE's list). */
export const SQL_ROW_PATTERN_VARIABLE_COUNT_MAX = 256;
assert(SQL_ROW_PATTERN_QUANTIFIER_BOUND_MAX <= SQL_ROW_PATTERN_PROGRAM_LENGTH_MAX);
assert(SQL_ROW_PATTERN_STEP_COUNT_MAX >= SQL_WORK_SLICE_UNIT_COUNT);
/** Running SQL statements one node lists in "#sqls"; past it the oldest are not listed (they still run). */
export const SQL_RUNNING_STATEMENT_COUNT_MAX = 1024;
/** Characters of a statement's text kept for "#sqls" (GridDB cuts it too). */
export const SQL_RUNNING_TEXT_LENGTH_MAX = 1024;
/**
 * Rows of one metatable one partition group sends when a statement gathers it from every engine
 * thread (lib/server/sql-peers.ts): "#tables" and "#index_info" grow with the containers; past it
 * LIMIT_EXCEEDED rather than a message of any size between threads.
 */
export const SQL_METATABLE_GROUP_ROW_COUNT_MAX = 200_000;
assert(SQL_RUNNING_STATEMENT_COUNT_MAX <= SQL_METATABLE_GROUP_ROW_COUNT_MAX);

// The PostgreSQL protocol on the SQL port (lib/pgwire/). Defaults of gs_node.json's /sql/pg*.
/** A frontend message (type byte excluded) may have at most this many bytes (/sql/pgMessageSizeLimit). */
export const PG_MESSAGE_BYTES_DEFAULT = 16 * 1024 * 1024;
/** A startup-phase message (StartupMessage, SASL) before authentication: PostgreSQL's own 10,000. */
export const PG_STARTUP_MESSAGE_BYTES_MAX = 10_000;
/** Statements one simple Query may hold (/sql/pgStatementsPerQueryLimit). */
export const PG_STATEMENTS_PER_QUERY_DEFAULT = 1000;
/** A connection that sends nothing for this long is closed (/sql/pgIdleTimeout). */
export const PG_IDLE_TIMEOUT_MS_DEFAULT = 3_600_000;
/** Time a connection has to authenticate: PostgreSQL's authentication_timeout. */
export const PG_AUTHENTICATION_TIMEOUT_MS = 60_000;
/** Named prepared statements and portals one connection holds at once. */
export const PG_PREPARED_STATEMENT_COUNT_MAX = 1000;
export const PG_PORTAL_COUNT_MAX = 1000;
/** Rows a portal fetches from the engine per page (SQL_EXECUTE's fetchSize). */
export const PG_FETCH_ROW_COUNT = 1000;
/** Bytes of replies queued on one socket before the connection stops reading its requests. */
export const PG_REPLY_QUEUED_BYTES_MAX = 4 * 1024 * 1024;
/** SCRAM-SHA-256 iterations of a new verifier: PostgreSQL's scram_iterations default. */
export const PG_SCRAM_ITERATIONS = 4096;
assert(PG_STARTUP_MESSAGE_BYTES_MAX < PG_MESSAGE_BYTES_DEFAULT);
