// griddb-engine.ts keeps one request writer between calls. The runner may read a request's bytes
// until its run settles (request-runner.ts: the body is valid only during the call), so a call
// made while another is running must not write into the bytes the first one lent: a runner here
// holds its requests open, in random overlaps, and checks at the end of each run that the body
// still decodes to the request sent; requests larger than the writer kept come and go between.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { decodeBody } from '../../../../lib/protocol/message-codec.ts';
import { ROW_PUT } from '../../../../lib/protocol/messages-row.ts';
import { encodeFrameInto, frameWriter } from '../../../../lib/protocol/frame.ts';
import { RowBatch } from '../../../../lib/protocol/wire-rows.ts';
import type { RequestRunner, RunOutcome } from '../../../../lib/server/request-runner.ts';
import type { RequestFrame } from '../../../../lib/server/reply-frames.ts';
import { replyHeader } from '../../../../lib/server/reply-frames.ts';
import {
  GRIDDB_REQUEST_WRITER_BYTES_KEPT_MAX, GriddbEngine,
} from '../../../../lib/server/griddb/griddb-engine.ts';

const MESSAGE_BYTES_MAX = 4 * GRIDDB_REQUEST_WRITER_BYTES_KEPT_MAX;

/** A runner that answers each request only when the test releases it, checking its body then. */
class HoldingRunner {
  readonly held: Array<() => void> = [];
  readonly failures: string[] = [];

  asRunner(): RequestRunner {
    return { run: (_id: number, frame: RequestFrame) => this.run(frame) } as unknown as
      RequestRunner;
  }

  private run(frame: RequestFrame): Promise<RunOutcome> {
    return new Promise((resolve) => {
      this.held.push(() => {
        const request = decodeBody(frame.body, ROW_PUT.readRequest, 'ROW_PUT request');
        const bytes = request.rows.encodedBytes!;
        const tag = request.statement.statementId & 0xff;
        if (bytes.some((byte) => byte !== tag)) {
          this.failures.push(`statement ${request.statement.statementId}: its rows changed`);
        }
        const reply = encodeFrameInto(frameWriter(1024), replyHeader(frame), () => undefined);
        resolve({ bytes: reply.slice() });
      });
    });
  }
}

/** A put of `sizeBytes` bytes of rows, every byte the statement id's low byte. */
function put(statementId: number, sizeBytes: number) {
  return {
    statement: { sessionId: 0, statementId },
    ref: { partitionId: 0, name: 'c', containerId: 1, schemaVersion: 1 },
    rows: RowBatch.encoded(1, new Uint8Array(sizeBytes).fill(statementId & 0xff)),
  };
}

describe('GriddbEngine request writer', () => {
  it('never writes into the bytes of a request still running', async () => {
    await fc.assert(fc.asyncProperty(
      fc.array(fc.record({
        sizeBytes: fc.oneof(fc.integer({ min: 1, max: 4096 }),
          fc.integer({ min: 1, max: 2 * GRIDDB_REQUEST_WRITER_BYTES_KEPT_MAX })),
        // How many of the calls running to answer before this one is made.
        release: fc.nat({ max: 3 }),
      }, { noNullPrototype: true }), { minLength: 1, maxLength: 12 }),
      async (calls) => {
        const runner = new HoldingRunner();
        const engine = new GriddbEngine(runner.asRunner(), 1, MESSAGE_BYTES_MAX);
        const running: Array<Promise<unknown>> = [];
        for (const [i, call] of calls.entries()) {
          for (let r = 0; r < call.release && runner.held.length > 0; r++) {
            runner.held.shift()!();
            await running.shift();
          }
          running.push(engine.call(ROW_PUT, put(i + 1, call.sizeBytes)));
        }
        while (runner.held.length > 0) runner.held.shift()!();
        await Promise.all(running);
        assert.deepStrictEqual(runner.failures, []);
      }), { numRuns: 60 });
  });
});
