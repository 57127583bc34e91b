// gs_sh's limits and defaults, in a file that imports nothing, so that every part of the shell can
// use them at load whatever the order its files load in.

/** `history` shows and keeps this many statements (GridDB's 500); so does ~/.gssh_history. */
export const HISTORY_ENTRIES_MAX = 500;
/** Rows a page fetched from the node holds unless setfetchsize says otherwise. */
export const FETCH_SIZE_DEFAULT = 1000;
export const FETCH_SIZE_MAX = 100_000;
/** Bytes of one counted query result kept on disk for get (shell-spool.ts); a larger one is refused. */
export const SPOOL_BYTES_MAX = 4 * 1024 ** 3;
