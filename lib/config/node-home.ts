// What a node does with its home before anything else: find GS_HOME, write the default definition
// files on the first start, read and validate both definition files and the password file, and
// open the event log (GS_LOG), where the warnings about ignored members are written. Any problem is
// a StorageError (CONFIG_INVALID naming the file and the member); nothing has been opened then
// except the files this wrote.
//
//   const home = await prepareNodeHome({ env: process.env, cwd: process.cwd(),
//     toolsDirectory: import.meta.dirname, fileSystem, clock: systemClock });
//   const store = await Store.open({ home: home.directories.home, options: home.config.storage });

import { EVENT_LOG_FILE_SIZE_BYTES_MAX } from '../base/limits.ts';
import type { Clock } from '../io/clock.ts';
import { EventLog, type EventLogFields } from '../io/event-log.ts';
import type { FileSystem } from '../io/file-system.ts';
import { loadConfig, type Config } from './config.ts';
import { createDefaultFiles } from './default-files.ts';
import {
  eventLogDirectory, resolveHome, type HomeDirectories, type HomeEnvironment,
} from './home.ts';
import { readPasswordTable, type PasswordTable } from './users.ts';

export interface NodeHome {
  directories: HomeDirectories;
  /** The event log's directory (GS_LOG). */
  logDirectory: string;
  config: Config;
  users: PasswordTable;
  eventLog: EventLog;
  /** Default files written by this start (the first one). */
  createdFiles: string[];
  warnings: string[];
}

export interface NodeHomeOptions extends HomeEnvironment {
  clock: Clock;
  /** Fields every event log record carries. */
  eventLogBase?: EventLogFields;
  /** Tests make files small to see them rotate. */
  eventLogFileSizeBytesMax?: number;
}

export async function prepareNodeHome(options: NodeHomeOptions): Promise<NodeHome> {
  const { fileSystem, clock } = options;
  const directories = resolveHome(options);
  const createdFiles = await createDefaultFiles(fileSystem, directories.home);
  const { config, warnings } = loadConfig(fileSystem, directories.home);
  const users = readPasswordTable(fileSystem, directories.home);
  const logDirectory = eventLogDirectory(directories, config.node.system.eventLogPath);
  const eventLog = openNodeEventLog({
    fileSystem, clock, directory: logDirectory, config,
    ...(options.eventLogBase === undefined ? {} : { base: options.eventLogBase }),
    fileSizeBytesMax: options.eventLogFileSizeBytesMax ?? EVENT_LOG_FILE_SIZE_BYTES_MAX,
  });
  const log = eventLog.component('systemService');
  for (const path of createdFiles) log.warning('created a default definition file', { path });
  for (const warning of warnings) log.warning(warning);
  return { directories, logDirectory, config, users, eventLog, createdFiles, warnings };
}

export function openNodeEventLog(options: {
  fileSystem: FileSystem;
  clock: Clock;
  directory: string;
  config: Config;
  fileSizeBytesMax: number;
  base?: EventLogFields;
}): EventLog {
  const { trace } = options.config.node;
  return EventLog.open({
    fileSystem: options.fileSystem,
    clock: options.clock,
    directory: options.directory,
    fileCount: trace.fileCount,
    fileSizeBytesMax: options.fileSizeBytesMax,
    levels: trace.levels,
    ...(options.base === undefined ? {} : { base: options.base }),
  });
}
