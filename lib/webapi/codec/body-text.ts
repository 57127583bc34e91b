// A whole request body as text, for the JSON bodies the web API parses at once (webapi-server.ts's
// body parser; the row PUTs read theirs as they arrive, json-stream.ts). Read by the stream's
// events, not `for await`: the async iterator, its end-of-stream watcher and their promises were
// about 5 µs of a small /tql request's CPU (a profile under perf/webapi-latency.ts).
//
// More than `bodySizeBytesMax` bytes (received; the declared length is checked before) is a 413
// and the stream is paused, not destroyed: destroying a request destroys its socket, and the 413
// with it (`for await` let go of the socket first); the error answer then closes the connection
// (webapi-server.ts, closeAfterAnswer). A stream that fails rejects with its error; one that closes
// before its end rejects as a premature close.

import { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import { bodyTooLarge } from './json-stream.ts';

/** The body's bytes as UTF-8 text once it has ended. */
export function readBodyText(body: Readable, bodySizeBytesMax: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let sizeBytes = 0;
    const settle = () => {
      body.off('data', onData);
      body.off('end', onEnd);
      body.off('error', onError);
      body.off('close', onClose);
    };
    const onData = (chunk: Buffer) => {
      sizeBytes += chunk.length;
      if (sizeBytes > bodySizeBytesMax) {
        settle();
        body.pause();
        reject(bodyTooLarge(bodySizeBytesMax));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => {
      settle();
      resolve(chunks.length === 1 ? chunks[0]!.toString('utf8')
        : Buffer.concat(chunks).toString('utf8'));
    };
    const onError = (error: Error) => {
      settle();
      reject(error);
    };
    const onClose = () => {
      settle();
      reject(Object.assign(new Error('Premature close'), { code: 'ERR_STREAM_PREMATURE_CLOSE' }));
    };
    body.on('data', onData);
    body.on('end', onEnd);
    body.on('error', onError);
    body.on('close', onClose);
  });
}
