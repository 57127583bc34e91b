// The write handlers' statement outcomes: what the statement table keeps of a write is its
// outcome and whether it still holds, not the request (its rows and bytes), which at the table's
// bound of 131,072 entries held hundreds of MB (issue 12's soak).

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import { AUTO_COMMIT_SESSION_ID } from '../../../lib/protocol/wire-refs.ts';
import { writeOnce } from '../../../lib/server/handlers-rows.ts';
import type { ConnectionContext } from '../../../lib/server/request-handler.ts';
import { StatementResults } from '../../../lib/server/statement-results.ts';
import { aliveAfterCollection } from './server-test-helpers.ts';

/** What writeOnce reads of a connection: its statements, its client and its sessions. */
function writeContext(openSessionIds: Set<number>): ConnectionContext {
  return {
    statements: new StatementResults(1000, 1000), clientKey: 'client',
    sessions: { isOpen: (sessionId: number) => openSessionIds.has(sessionId) },
  } as unknown as ConnectionContext;
}

describe('write handlers', () => {
  it('remember a write\'s outcome without its request', async () => {
    const context = writeContext(new Set());
    const requests: WeakRef<object>[] = [];
    const writeCount = 50;
    for (let statementId = 1; statementId <= writeCount; statementId++) {
      const request = { rows: new Uint8Array(1024) };
      requests.push(new WeakRef(request));
      const statement = { sessionId: AUTO_COMMIT_SESSION_ID, statementId };
      assert.equal(await writeOnce(context, MessageType.ROW_PUT, statement, async (transactional) => {
        transactional(false);
        return request.rows.length;
      }), 1024);
    }
    for (let statementId = 1; statementId <= writeCount; statementId++) {
      assert.ok(context.statements.answers({ clientKey: 'client', statementId,
        messageType: MessageType.ROW_PUT }), 'still remembered');
    }
    assert.equal(await aliveAfterCollection(requests), 0);
  });

  it('let a manual transaction\'s write outcome die with its session', async () => {
    const open = new Set([7]);
    const context = writeContext(open);
    const key = { clientKey: 'client', statementId: 1, messageType: MessageType.ROW_PUT };
    let runs = 0;
    const write = () => writeOnce(context, MessageType.ROW_PUT, { sessionId: 7, statementId: 1 },
      async (transactional) => {
        transactional(true);
        return ++runs;
      });
    assert.equal(await write(), 1);
    assert.equal(await write(), 1, 'answered while the session is open');
    open.delete(7);
    assert.equal(context.statements.answers(key), false);
    assert.equal(await write(), 2, 'run again once the session is gone');
  });
});
