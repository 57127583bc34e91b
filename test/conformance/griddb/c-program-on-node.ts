// One compiled C program of GridDB's client and one store node process for a conformance suite:
// built and started before the suite's tests, stopped and removed after them. `skip` says why
// when the client cannot be built here (no source or no build tools: griddb-c-client.ts).

import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { newNodeHome, removeHome, startNodeProcess, type NodeProcess } from '../../unit/node/node-process.ts';
import { compileProgram, griddbCClient } from '../../support/griddb-c-client.ts';

export interface CProgramOnNode {
  /** Why the suite's tests skip; undefined when the program and the node are ready. */
  readonly skip: string | undefined;
  /** The compiled program's path. */
  readonly program: string;
  readonly node: NodeProcess;
}

/** Registers the suite's before/after; call it inside the suite's describe. */
export function cProgramOnNodeForSuite(sourcePath: string): CProgramOnNode {
  let skip: string | undefined;
  let program = '';
  let home = '';
  let node: NodeProcess | undefined;

  before(async () => {
    const client = await griddbCClient();
    if ('skip' in client) {
      skip = client.skip;
      return;
    }
    program = await compileProgram(client, sourcePath);
    home = newNodeHome();
    node = await startNodeProcess(home);
  });

  after(async () => {
    await node?.stop();
    if (home !== '') removeHome(home);
  });

  return {
    get skip() { return skip; },
    get program() { return program; },
    get node() {
      assert(node !== undefined, 'the suite has no node: check skip first');
      return node;
    },
  };
}
