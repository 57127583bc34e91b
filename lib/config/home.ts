// Where a node keeps its files. GS_HOME is, in order: the GS_HOME environment variable; `var/` of
// the checkout when the tools run from one (a package.json named `store` beside the tools/
// folder, or beside dist/ holding the compiled tools/); else `/var/lib/store`, where the package
// installs. GS_LOG, the event log's directory, is the GS_LOG variable, else `/system/eventLogPath` of gs_node.json under GS_HOME (`log`).
//
// Environment and paths are passed in, not read from `process`, so tests resolve any layout.

import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import type { FileSystem } from '../io/file-system.ts';
import { readDefinitionFile } from './definition-file.ts';

export const INSTALLED_HOME = '/var/lib/store';
/** Beside the checkout's package.json. */
export const CHECKOUT_HOME_NAME = 'var';
export const PACKAGE_NAME = 'store';
/** Where `npm run build` writes the compiled JavaScript, beside package.json. */
export const COMPILED_FOLDER_NAME = 'dist';

export type HomeSource = 'GS_HOME' | 'checkout' | 'installed';

export interface HomeEnvironment {
  /** The process environment (GS_HOME, GS_LOG). */
  env: Readonly<Record<string, string | undefined>>;
  /** The working directory, for a relative GS_HOME or GS_LOG. */
  cwd: string;
  /** The folder of the running tool; its parent holds package.json in a checkout. */
  toolsDirectory: string;
  fileSystem: FileSystem;
}

export interface HomeDirectories {
  home: string;
  /** The GS_LOG variable, resolved; undefined when it is not set. */
  logFromEnvironment: string | undefined;
  source: HomeSource;
}

export function resolveHome(environment: HomeEnvironment): HomeDirectories {
  const { env, cwd } = environment;
  const logFromEnvironment = nonEmpty(env['GS_LOG']);
  const logDirectory = logFromEnvironment === undefined ? undefined : resolve(cwd, logFromEnvironment);
  const home = nonEmpty(env['GS_HOME']);
  if (home !== undefined) {
    return { home: resolve(cwd, home), logFromEnvironment: logDirectory, source: 'GS_HOME' };
  }
  const checkout = checkoutRoot(environment);
  if (checkout !== undefined) {
    return {
      home: join(checkout, CHECKOUT_HOME_NAME), logFromEnvironment: logDirectory, source: 'checkout',
    };
  }
  return { home: INSTALLED_HOME, logFromEnvironment: logDirectory, source: 'installed' };
}

/** The event log's directory: GS_LOG, else `/system/eventLogPath` resolved against GS_HOME. */
export function eventLogDirectory(directories: HomeDirectories, eventLogPath: string): string {
  if (directories.logFromEnvironment !== undefined) return directories.logFromEnvironment;
  return isAbsolute(eventLogPath) ? eventLogPath : join(directories.home, eventLogPath);
}

/** Resolves a configured path (dbPath, backupPath...) against GS_HOME unless it is absolute. */
export function homePath(home: string, path: string): string {
  return isAbsolute(path) ? path : join(home, path);
}

/**
 * The folder of package.json for a tools folder: its parent, or for the compiled tools
 * (dist/tools/) the folder above dist/.
 */
export function packageRootOf(toolsDirectory: string): string {
  const parent = resolve(toolsDirectory, '..');
  return basename(parent) === COMPILED_FOLDER_NAME ? dirname(parent) : parent;
}

function checkoutRoot(environment: HomeEnvironment): string | undefined {
  const root = packageRootOf(resolve(environment.cwd, environment.toolsDirectory));
  const packagePath = join(root, 'package.json');
  try {
    const manifest = readDefinitionFile(environment.fileSystem, packagePath);
    return manifest?.['name'] === PACKAGE_NAME ? root : undefined;
  } catch {
    // A package.json we cannot read is not our checkout's.
    return undefined;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}
