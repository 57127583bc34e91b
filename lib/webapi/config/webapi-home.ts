// The web API's home: `GS_WEBAPI_HOME` when set, else `<GS_HOME>/webapi` (GS_HOME found as the
// node finds it, lib/config/home.ts). On the first start it writes `conf/repository.json` (a
// FIXED_LIST entry for the node of this GS_HOME, read from its gs_cluster.json and gs_node.json)
// and `conf/store_webapi.properties` (every key at its default); an existing file is never
// touched. Then it reads both; a bad one is a CONFIG_INVALID naming the file and the member.

import { join, resolve } from 'node:path';
import { WEBAPI_CONFIG_FILE_BYTES_MAX } from '../../base/limits.ts';
import { StorageError } from '../../base/errors.ts';
import { loadConfig } from '../../config/config.ts';
import { CLUSTER_NAME_DEFAULT } from '../../config/cluster-config.ts';
import {
  readConfigText, readDefinitionFile, replaceConfigFile,
} from '../../config/definition-file.ts';
import { resolveHome, type HomeEnvironment } from '../../config/home.ts';
import { SERVICE_ADDRESS_DEFAULT, SERVICE_PORTS_DEFAULT } from '../../config/node-services.ts';
import { makeDirectoryDurable, type FileSystem } from '../../io/file-system.ts';
import { parseProperties } from './properties-file.ts';
import {
  defaultRepository, readRepository, REPOSITORY_FILE_NAME, type Repository,
} from './repository.ts';
import {
  defaultSettingsText, readWebApiSettings, WEBAPI_SETTINGS_FILE_NAME, type WebApiSettings,
} from './webapi-settings.ts';

export const WEBAPI_HOME_NAME = 'webapi';

export interface WebApiHome {
  /** The node's GS_HOME. */
  home: string;
  webApiHome: string;
  repository: Repository;
  settings: WebApiSettings;
  createdFiles: string[];
  warnings: string[];
}

export async function prepareWebApiHome(environment: HomeEnvironment): Promise<WebApiHome> {
  const { fileSystem } = environment;
  const { home } = resolveHome(environment);
  const fromEnvironment = environment.env['GS_WEBAPI_HOME'];
  const webApiHome = fromEnvironment !== undefined && fromEnvironment !== ''
    ? resolve(environment.cwd, fromEnvironment) : join(home, WEBAPI_HOME_NAME);
  const conf = join(webApiHome, 'conf');
  await makeDirectoryDurable(fileSystem, conf);
  const createdFiles: string[] = [];
  const warnings: string[] = [];
  const repositoryPath = join(conf, REPOSITORY_FILE_NAME);
  if (!fileSystem.exists(repositoryPath)) {
    const local = localNode(fileSystem, home, warnings);
    await replaceConfigFile(fileSystem, repositoryPath,
      `${JSON.stringify(defaultRepository(local), null, 2)}\n`);
    createdFiles.push(repositoryPath);
  }
  const settingsPath = join(conf, WEBAPI_SETTINGS_FILE_NAME);
  if (!fileSystem.exists(settingsPath)) {
    await replaceConfigFile(fileSystem, settingsPath, defaultSettingsText());
    createdFiles.push(settingsPath);
  }
  const repositoryReading = readRepository(readJsonFile(fileSystem, repositoryPath),
    repositoryPath);
  const settingsReading = readWebApiSettings(
    parseProperties(readConfigText(fileSystem, settingsPath) ?? ''), settingsPath);
  warnings.push(...repositoryReading.warnings, ...settingsReading.warnings);
  return {
    home, webApiHome, repository: repositoryReading.repository,
    settings: settingsReading.settings, createdFiles, warnings,
  };
}

function readJsonFile(fileSystem: FileSystem, path: string): unknown {
  const text = readConfigText(fileSystem, path);
  if (text === undefined) throw new StorageError('CONFIG_INVALID', `${path} does not exist`);
  if (text.length > WEBAPI_CONFIG_FILE_BYTES_MAX) {
    throw new StorageError('CONFIG_INVALID', `${path} is larger than ` +
      `${WEBAPI_CONFIG_FILE_BYTES_MAX} bytes`);
  }
  return readDefinitionFile(fileSystem, path);
}

/** The cluster name and client addresses of the node of `home`; GridDB's defaults without one. */
function localNode(fileSystem: FileSystem, home: string, warnings: string[]) {
  const fallback = {
    clusterName: CLUSTER_NAME_DEFAULT,
    transactionMember: `${SERVICE_ADDRESS_DEFAULT}:${SERVICE_PORTS_DEFAULT.transaction}`,
    sqlMember: `${SERVICE_ADDRESS_DEFAULT}:${SERVICE_PORTS_DEFAULT.sql}`,
  };
  try {
    const { config } = loadConfig(fileSystem, home);
    const { transaction, sql } = config.node.services;
    return {
      clusterName: config.cluster.clusterName,
      transactionMember: memberOf(transaction.address, transaction.port),
      sqlMember: memberOf(sql.address, sql.port),
    };
  } catch (error) {
    warnings.push(`the node's configuration in ${home} could not be read (${String(error)}); ` +
      `repository.json lists ${fallback.clusterName} at ${fallback.transactionMember}`);
    return fallback;
  }
}

/** `host:port` a client can dial: a wildcard address means this machine. */
function memberOf(address: string, port: number): string {
  const host = address === '0.0.0.0' || address === '::' ? SERVICE_ADDRESS_DEFAULT : address;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}
