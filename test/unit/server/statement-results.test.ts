// The statement outcome cache alone: a retry gets the first outcome (also while the first attempt
// runs, and when it failed), an outcome that no longer holds runs again, and both bounds forget
// the oldest, a busy client only its own. A property test holds it to a plain model: one Map in
// insertion order, keyed by client and statement id.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { StorageError } from '../../../lib/base/errors.ts';
import { MessageType } from '../../../lib/protocol/message-types.ts';
import { StatementResults } from '../../../lib/server/statement-results.ts';
import { aliveAfterCollection, storageError } from './server-test-helpers.ts';

function key(clientKey: string, statementId: number, messageType?: MessageType) {
  return { clientKey, statementId, messageType: messageType ?? MessageType.ROW_PUT };
}

describe('statement results', () => {
  it('runs a statement once; a retry gets the first outcome, value or error', async () => {
    const results = new StatementResults(100, 10);
    let runs = 0;
    const run = async () => ++runs;
    assert.equal(await results.once(key('a', 1), run), 1);
    assert.equal(await results.once(key('a', 1), run), 1);
    assert.equal(await results.once(key('b', 1), run), 2, 'another client');
    const failing = () => Promise.reject(new StorageError('LOCK_TIMEOUT', 'waited'));
    await assert.rejects(results.once(key('a', 2), failing), storageError('LOCK_TIMEOUT'));
    await assert.rejects(results.once(key('a', 2), run), storageError('LOCK_TIMEOUT'));
    assert.equal(runs, 2);
  });

  it('makes a retry wait for a first attempt still running', async () => {
    const results = new StatementResults(100, 10);
    let release: (value: string) => void = () => undefined;
    const first = results.once(key('a', 1), () => new Promise<string>((resolve) => {
      release = resolve;
    }));
    const retry = results.once(key('a', 1), async () => 'second');
    release('first');
    assert.deepEqual(await Promise.all([first, retry]), ['first', 'first']);
  });

  it('runs again when an outcome no longer holds; refuses an id used by another kind', async () => {
    const results = new StatementResults(100, 10);
    let holds = true;
    let runs = 0;
    await results.once(key('a', 1), async () => ++runs, { holds: () => holds });
    await results.once(key('a', 1), async () => ++runs, { holds: () => holds });
    holds = false;
    await results.once(key('a', 1), async () => ++runs, { holds: () => holds });
    assert.equal(runs, 2);
    await assert.rejects(results.once(key('a', 1, MessageType.ROW_REMOVE), async () => 0),
      storageError('PROTOCOL_ERROR'));
  });

  it('forgets a busy client\'s own oldest outcomes, and the oldest overall', async () => {
    const results = new StatementResults(6, 3);
    for (let id = 1; id <= 2; id++) await results.once(key('quiet', id), async () => id);
    for (let id = 1; id <= 10; id++) await results.once(key('busy', id), async () => id);
    assert.equal(results.size, 5);
    assert.equal(await results.once(key('quiet', 1), async () => -1), 1, 'kept');
    assert.equal(await results.once(key('busy', 7), async () => -1), -1, 'forgotten');
    for (let id = 1; id <= 4; id++) await results.once(key(`c${id}`, 1), async () => id);
    assert.equal(results.size, 6);
    assert.equal(await results.once(key('quiet', 2), async () => -2), -2,
      'the oldest overall went');
  });

  it('keeps no outcome it forgot, while the forgotten slots still wait to be compacted', async () => {
    const countMax = 4;
    const results = new StatementResults(countMax, countMax);
    const outcomes: WeakRef<object>[] = [];
    for (let id = 1; id <= 200; id++) {
      await results.once(key('a', id), async () => {
        const outcome = { bytes: new Uint8Array(1024) };
        outcomes.push(new WeakRef(outcome));
        return outcome;
      }, { holds: () => true });
    }
    assert.equal(results.size, countMax);
    assert.equal(await aliveAfterCollection(outcomes), countMax);
  });

  it('keeps what a plain insertion-ordered model keeps, under any run of statements', async () => {
    const step = fc.record({
      client: fc.constantFrom('a', 'b', 'c'),
      statementId: fc.integer({ min: 1, max: 12 }),
      holds: fc.boolean(),
    }, { noNullPrototype: true });
    await fc.assert(fc.asyncProperty(
      fc.array(step, { maxLength: 300 }), fc.integer({ min: 1, max: 8 }),
      fc.integer({ min: 1, max: 5 }),
      async (steps, countMax, countPerClientMax) => {
        const results = new StatementResults(countMax, countPerClientMax);
        const model = new Map<string, { client: string; holds: boolean }>();
        const holding = new Map<string, boolean>();
        let runs = 0;
        for (const { client, statementId, holds } of steps) {
          const modelKey = `${client}#${statementId}`;
          const kept = model.get(modelKey);
          // The model: a kept outcome that holds answers; otherwise the statement runs again
          // and becomes the newest entry, then both bounds forget the oldest.
          const answered = kept !== undefined && holding.get(modelKey) !== false;
          const run = ++runs;
          const ran = await results.once(key(client, statementId), async () => run,
            { holds: () => holding.get(modelKey) !== false }) === run;
          holding.set(modelKey, holds);
          assert.equal(ran, !answered);
          if (answered) continue;
          model.delete(modelKey);
          model.set(modelKey, { client, holds });
          const own = [...model].filter(([, entry]) => entry.client === client);
          if (own.length > countPerClientMax) model.delete(own[0]![0]);
          while (model.size > countMax) model.delete(model.keys().next().value!);
          assert.equal(results.size, model.size);
        }
        for (const client of ['a', 'b', 'c']) {
          for (let statementId = 1; statementId <= 12; statementId++) {
            const modelKey = `${client}#${statementId}`;
            assert.equal(results.answers(key(client, statementId)),
              model.has(modelKey) && holding.get(modelKey) !== false, modelKey);
          }
        }
      }), { numRuns: 200 });
  });

  it('keeps what the model keeps with many entries and any statement id (columns grown, compacted)',
    async () => {
      const ids = fc.oneof(fc.integer({ min: 0, max: 300 }),
        fc.constantFrom(-1, 2 ** 31, 2 ** 32, 2 ** 32 + 1, 2 ** 53 - 1, -(2 ** 53) + 1));
      const step = fc.record({ client: fc.constantFrom('a', 'b', 'c', 'd'), statementId: ids },
        { noNullPrototype: true });
      await fc.assert(fc.asyncProperty(fc.array(step, { minLength: 100, maxLength: 1500 }),
        fc.integer({ min: 1, max: 300 }), fc.integer({ min: 1, max: 300 }),
        async (steps, countMax, countPerClientMax) => {
          const results = new StatementResults(countMax, countPerClientMax);
          const model = new Map<string, { client: string; value: number }>();
          let runs = 0;
          for (const { client, statementId } of steps) {
            const modelKey = `${client}#${statementId}`;
            const kept = model.get(modelKey);
            const run = ++runs;
            const answer = await results.once(key(client, statementId), async () => run);
            assert.equal(answer, kept === undefined ? run : kept.value, modelKey);
            if (kept !== undefined) continue;
            model.set(modelKey, { client, value: run });
            const own = [...model].filter(([, entry]) => entry.client === client);
            if (own.length > countPerClientMax) model.delete(own[0]![0]);
            while (model.size > countMax) model.delete(model.keys().next().value!);
            assert.equal(results.size, model.size);
          }
        }), { numRuns: 60 });
    });

  it('answers a retry with an outcome that settled after its entry was moved by compaction',
    async () => {
      const results = new StatementResults(10_000, 10);
      // Client c's own bound forgets its oldest, leaving dead slots (before a's entry too), so
      // compaction moves a's running entry down.
      for (let id = 1; id <= 5; id++) await results.once(key('c', id), async () => 'c');
      let release: (value: string) => void = () => undefined;
      const first = results.once(key('a', 1), () => new Promise<string>((resolve) => {
        release = resolve;
      }));
      for (let id = 6; id <= 2000; id++) await results.once(key('c', id), async () => 'c');
      release('first');
      assert.equal(await first, 'first');
      assert.equal(await results.once(key('a', 1), async () => 'second'), 'first');
      assert.equal(results.size, 11);
    });

  it('keeps neither the outcome\'s Promise nor a validity that holds for good', async () => {
    const results = new StatementResults(1000, 1000);
    const promises: WeakRef<object>[] = [];
    const validities: WeakRef<object>[] = [];
    const shared = Object.freeze({});
    for (let id = 1; id <= 200; id++) {
      const validity = { holds: () => true, holdsForGood: () => true };
      validities.push(new WeakRef(validity));
      await results.once(key('a', id), () => {
        const outcome = Promise.resolve(shared);
        promises.push(new WeakRef(outcome));
        return outcome;
      }, validity);
    }
    assert.equal(results.size, 200);
    // At most the last: V8 may still hold the newest object somewhere of its own; the table held
    // all 200 when each entry kept its Promise and validity.
    assert.ok(await aliveAfterCollection(promises) <= 1, 'promises');
    assert.ok(await aliveAfterCollection(validities) <= 1, 'validities');
    assert.equal(await results.once(key('a', 7), async () => undefined), shared);
  });
});
