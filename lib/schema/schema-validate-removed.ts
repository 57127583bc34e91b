// Container options GridDB 5.0 removed. They are refused with NOT_SUPPORTED and the words
// "not supported since 5.0", so a client written for 4.x learns why, instead of getting a
// container that silently behaves differently (no compression, rows that never expire).
//
//   timeSeriesProperties.compressionMethod  HI or SS refused; NO (no compression) is fine
//   compressionWindowSize(Unit), specificCompressionColumns   only meaningful with HI/SS: refused
//   rowExpirationTime(Unit), expirationDivisionCount (in timeSeriesProperties), rowExpiration
//                                                              row expiry
//   triggers (a non-empty list)

import { StorageError } from '../base/errors.ts';
import type { ContainerType } from './container-schema.ts';
import { quote } from './describe-value.ts';
import {
  definitionArray, definitionEnumText, definitionMember, definitionObject, schemaInvalid,
  type DefinitionObject,
} from './schema-validate-json.ts';

const ROW_EXPIRY_MEMBERS = [
  'rowExpirationTime', 'rowExpirationTimeUnit', 'expirationDivisionCount',
];
const COMPRESSION_MEMBERS = [
  'compressionWindowSize', 'compressionWindowSizeUnit', 'specificCompressionColumns',
];
const TIME_SERIES_PROPERTY_MEMBERS = new Set([
  'compressionMethod', ...ROW_EXPIRY_MEMBERS, ...COMPRESSION_MEMBERS,
]);

export function removedOptionsCheck(
  definition: DefinitionObject,
  type: ContainerType,
  where: string,
): void {
  if (definitionMember(definition, 'rowExpiration') !== undefined) {
    throw notSupported(`${where}: row expiry (rowExpiration) is not supported since 5.0`);
  }
  const triggers = definitionArray(definition, 'triggers', where);
  if (triggers !== undefined && triggers.length > 0) {
    throw notSupported(`${where}: triggers are not supported since 5.0`);
  }
  const propertiesGiven = definitionMember(definition, 'timeSeriesProperties');
  if (propertiesGiven === undefined) return;
  const properties = definitionObject(propertiesGiven, `${where}: timeSeriesProperties`,
    TIME_SERIES_PROPERTY_MEMBERS);
  timeSeriesPropertiesCheck(properties, where);
  if (type !== 'TIME_SERIES') {
    throw schemaInvalid(`${where}: timeSeriesProperties are for TIME_SERIES containers only`);
  }
}

function timeSeriesPropertiesCheck(properties: DefinitionObject, where: string): void {
  for (const member of ROW_EXPIRY_MEMBERS) {
    if (definitionMember(properties, member) !== undefined) {
      throw notSupported(`${where}: row expiry (timeSeriesProperties.${member}) is not supported ` +
        'since 5.0');
    }
  }
  const method = definitionEnumText(properties, 'compressionMethod', where);
  if (method === 'HI' || method === 'SS') {
    throw notSupported(`${where}: compressionMethod ${method} is not supported since 5.0; ` +
      'use NO (block compression is a store option)');
  }
  if (method !== undefined && method !== 'NO') {
    throw schemaInvalid(`${where}: compressionMethod must be NO, got ${quote(method)}`);
  }
  for (const member of COMPRESSION_MEMBERS) {
    if (definitionMember(properties, member) !== undefined) {
      throw notSupported(`${where}: timeSeriesProperties.${member} (HI/SS compression) is not ` +
        'supported since 5.0');
    }
  }
}

function notSupported(message: string): StorageError {
  return new StorageError('NOT_SUPPORTED', message);
}
