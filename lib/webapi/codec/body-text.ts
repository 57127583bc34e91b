// A whole request body as text, for the JSON bodies the web API parses at once (webapi-server.ts's
// body parser; the row PUTs read theirs as they arrive, json-stream.ts). Two ways:
//   declared  a body with a Content-Length (checked against the limit before, and held to it by
//             Node's HTTP parser), the usual small /tql or /sql body: read by the stream's
//             events. `for await` cost about 5 µs of such a request's CPU (its async iterator, its
//             end-of-stream watcher, their promises; a profile under perf/webapi-latency.ts).
//   counted   a chunked body: read by `for await`, counted, and refused with 413 past
//             `bodySizeBytesMax`. Leaving the loop destroys the request with its socket let go
//             first (Node's destroyer for a server request), so the 413 is still written and
//             the connection then closed (webapi-server.ts, closeAfterAnswer).
// A stream that fails rejects with its error; one that closes before its end rejects as a
// premature close.

import { Buffer } from 'node:buffer';
import type { Readable } from 'node:stream';
import { bodyTooLarge } from './json-stream.ts';

/** The body's bytes as UTF-8 text once it has ended; `lengthDeclared`: it has a Content-Length. */
export function readBodyText(body: Readable, bodySizeBytesMax: number, lengthDeclared: boolean):
  Promise<string> {
  return lengthDeclared ? readDeclared(body, bodySizeBytesMax)
    : readCounted(body, bodySizeBytesMax);
}

async function readCounted(body: AsyncIterable<Uint8Array>, bodySizeBytesMax: number):
  Promise<string> {
  const chunks: Uint8Array[] = [];
  let sizeBytes = 0;
  for await (const chunk of body) {
    sizeBytes += chunk.byteLength;
    if (sizeBytes > bodySizeBytesMax) throw bodyTooLarge(bodySizeBytesMax);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readDeclared(body: Readable, bodySizeBytesMax: number): Promise<string> {
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
      // Not for an HTTP request (its parser stops at the declared length); a stream that lies.
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
