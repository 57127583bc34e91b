// How a client connection reaches a node when not by TCP. The client opens a TCP connection to
// the node's address unless its options carry a transport; the node's own web API
// (lib/node/node-webapi.ts) passes one that hands back an in-process socket of the node's
// transaction server (lib/server/in-process-socket.ts). Everything above the socket (HELLO,
// AUTH, requests, timeouts, retries) is the same either way.

import type { Socket } from 'node:net';
import type { NodeAddress } from './client-properties.ts';

export interface ClientTransport {
  /**
   * A socket to the node at `address`, emitting 'connect' once the node has it; each chunk it
   * reads goes to `received`, which keeps nothing of the bytes after it returns.
   */
  connect(address: NodeAddress, received: (bytes: Uint8Array) => void): Socket;
}
