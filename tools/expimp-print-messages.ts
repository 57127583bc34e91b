// The messages between gs_export's main thread and its print thread (expimp-print-thread.ts owns
// the main side, expimp-print-worker.ts the thread). Every message names its row file by a number
// the main thread gave at `open`; the thread answers each page and each close in the order sent.

import type { ColumnSchema } from '../lib/schema/container-schema.ts';

export type PrintRequest =
  | {
    kind: 'open'; file: number; path: string; header: string;
    columns: readonly ColumnSchema[]; directory: string; stem: string;
  }
  /** `bytes` is the page's own copy, transferred: the thread may keep it until printed. */
  | { kind: 'page'; file: number; bytes: Uint8Array; count: number; firstRowIndex: number }
  | { kind: 'close'; file: number };

export type PrintReply =
  | { kind: 'printed'; file: number; count: number }
  | { kind: 'closed'; file: number }
  /** The file's first failure; the thread has closed it and drops what else comes for it. */
  | { kind: 'failed'; file: number; message: string };
