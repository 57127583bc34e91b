// Index requests: createIndex and dropIndex on the container a name ref names. The engine checks
// the definition or selector (Store.createIndex, dropIndex); this file adds what the protocol asks:
// the partition the client computed, statement ids, and the info after the change in the reply.

import { StorageError } from '../base/errors.ts';
import type { IndexDefinition, IndexSelector } from '../schema/container-schema.ts';
import type { Store } from '../engine/store.ts';
import { protocolError } from '../protocol/frame.ts';
import { CREATE_INDEX, DROP_INDEX } from '../protocol/messages-index.ts';
import { containerGet } from './container-lookup.ts';
import { wireInfo } from './handlers-containers.ts';
import { handler, statementKey, type DispatchEntry } from './request-handler.ts';

export const INDEX_HANDLERS: readonly DispatchEntry[] = [
  handler(CREATE_INDEX, (request, context) => context.statements.once(
    statementKey(context, CREATE_INDEX.type, request.statement),
    async () => {
      const name = containerGet(context, request.ref).schema.name;
      const created = await context.store.createIndex(name,
        jsonParse(request.json) as IndexDefinition);
      return { created, info: infoAfter(context.store, name) };
    })),

  handler(DROP_INDEX, (request, context) => context.statements.once(
    statementKey(context, DROP_INDEX.type, request.statement),
    async () => {
      const name = containerGet(context, request.ref).schema.name;
      const droppedCount = await context.store.dropIndex(name,
        jsonParse(request.json) as IndexSelector);
      return { droppedCount, info: infoAfter(context.store, name) };
    })),
];

function infoAfter(store: Store, name: string) {
  const info = store.getContainerInfo(name);
  if (info === undefined) {
    throw new StorageError('CONTAINER_NOT_FOUND', `container ${JSON.stringify(name)} was dropped`);
  }
  return wireInfo(info);
}

function jsonParse(json: string): unknown {
  try {
    return JSON.parse(json) as unknown;
  } catch (error) {
    throw protocolError('an index definition that is not JSON', error);
  }
}
