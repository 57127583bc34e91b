// SQL views in gs_export and gs_import, as GridDB's tools move them (griddb/expimp 4.2+,
// exportProcess.exportViews, importProcess.createOrReplaceView): with --all or --db, gs_export
// reads each database's "#views" and writes their definitions to `gs_export_view.json` (no file
// when there are none); gs_import, after the containers, recreates each view of the databases it
// imports with `CREATE FORCE VIEW "name" AS definition`. A view already there is an error;
// with --replace it is dropped and made again, with --force it is left as it is and reported.
//
//   {"version":"5.8.0","view":[{"database":"public","name":"v1","definition":"SELECT ..."}, ...]}

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClientStore } from '../lib/client/store-factory.ts';
import { EXPORT_FORMAT_VERSION } from './expimp-metadata.ts';

export const EXPORT_VIEW_FILE = 'gs_export_view.json';

export interface ExportedView {
  database: string;
  name: string;
  definition: string;
}

/** The views of the databases given, read from each one's "#views" (the store of that database). */
export async function viewsOf(databases: ReadonlyArray<{ database: string; store: ClientStore }>):
  Promise<ExportedView[]> {
  const views: ExportedView[] = [];
  for (const { database, store } of databases) {
    const rows = await (await store.sql('SELECT VIEW_NAME, VIEW_DEFINITION FROM "#views"')).toArray();
    for (const row of rows) views.push({ database, name: String(row[0]), definition: String(row[1]) });
  }
  return views;
}

/** Writes gs_export_view.json when there are views (GridDB writes none otherwise). */
export function writeViewFile(directory: string, views: readonly ExportedView[]): void {
  if (views.length === 0) return;
  const file = { version: EXPORT_FORMAT_VERSION, view: views };
  writeFileSync(join(directory, EXPORT_VIEW_FILE), JSON.stringify(file, null, 2) + '\n');
}

/** The views of gs_export_view.json in the databases `wanted` picks; none without the file. */
export function readViewFile(directory: string, wanted: (database: string) => boolean): ExportedView[] {
  const path = join(directory, EXPORT_VIEW_FILE);
  if (!existsSync(path)) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new Error(`${EXPORT_VIEW_FILE}: not JSON (${(error as Error).message})`, { cause: error });
  }
  const list = (parsed as { view?: unknown }).view;
  if (!Array.isArray(list)) throw new Error(`${EXPORT_VIEW_FILE}: "view" must be an array`);
  return list.map((item: unknown, index) => {
    const view = item as Partial<Record<keyof ExportedView, unknown>>;
    for (const key of ['database', 'name', 'definition'] as const) {
      if (typeof view[key] !== 'string' || view[key] === '') {
        throw new Error(`${EXPORT_VIEW_FILE}: view ${index + 1} needs a "${key}" string`);
      }
    }
    return view as ExportedView;
  }).filter((view) => wanted(view.database));
}

/**
 * Creates one view in its database (GridDB's createOrReplaceView): 'created', or 'skipped' for
 * one already there under --force; throws for one already there otherwise.
 */
export async function importView(store: ClientStore, view: ExportedView,
  mode: { replace: boolean; force: boolean }): Promise<'created' | 'skipped'> {
  const quoted = `"${view.name.replace(/"/g, '""')}"`;
  const existing = await (await store.sql('SELECT VIEW_NAME FROM "#views" WHERE VIEW_NAME = ?',
    [view.name])).toArray();
  if (existing.length > 0) {
    if (mode.replace) {
      await store.sql(`DROP VIEW ${quoted}`);
    } else if (mode.force) {
      return 'skipped';
    } else {
      throw new Error(`the view ${view.database}.${view.name} already exists (--replace replaces it)`);
    }
  }
  await store.sql(`CREATE FORCE VIEW ${quoted} AS ${view.definition}`);
  return 'created';
}
