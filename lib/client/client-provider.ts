// PROVIDER clusters: the address provider is an HTTP GET that answers with a JSON array of the
// cluster's nodes, each `{ "transaction": { "address": "…", "port": n }, … }` (the seed's
// "Address provider"), optionally with `transactionPublic` for the external route. The client asks
// it when it needs a connection and takes the transaction services, in the order given.

import { StorageError } from '../base/errors.ts';
import type { ClientOptions, NodeAddress } from './client-properties.ts';

/** A provider's answer larger than this is refused: a node list is a few KB. */
const PROVIDER_RESPONSE_BYTES_MAX = 1024 * 1024;

export async function providerAddresses(url: URL, options: ClientOptions): Promise<NodeAddress[]> {
  let body: unknown;
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(options.requestTimeoutMs) });
    if (!response.ok) throw new Error(`status ${response.status}`);
    const text = await response.text();
    if (text.length > PROVIDER_RESPONSE_BYTES_MAX) throw new Error('the answer is too large');
    body = JSON.parse(text);
  } catch (error) {
    throw new StorageError('CONNECTION_FAILED', `the address provider ${url.href} did not ` +
      `answer with a node list: ${error instanceof Error ? error.message : String(error)}`,
    { cause: error });
  }
  const member = options.connectionRoute === 'PUBLIC' ? 'transactionPublic' : 'transaction';
  const addresses = Array.isArray(body) ? body.flatMap((node) => nodeAddress(node, member)) : [];
  if (addresses.length === 0) {
    throw new StorageError('CONNECTION_FAILED', `the address provider ${url.href} listed no ` +
      `node with a ${member} address`);
  }
  return addresses;
}

function nodeAddress(node: unknown, member: string): NodeAddress[] {
  if (typeof node !== 'object' || node === null) return [];
  const service = (node as Record<string, unknown>)[member];
  if (typeof service !== 'object' || service === null) return [];
  const { address, port } = service as { address?: unknown; port?: unknown };
  if (typeof address !== 'string' || typeof port !== 'number' || !Number.isInteger(port)) return [];
  return [{ host: address, port }];
}
