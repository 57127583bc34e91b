// Runs the FileSystem contract on every implementation.

import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NodeFileSystem } from '../../../lib/io/node-file-system.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';
import { fileSystemContract } from './file-system-contract.ts';

fileSystemContract('NodeFileSystem', () => {
  const root = mkdtempSync(join(tmpdir(), 'store-fs-contract-'));
  const cleanup = () => rmSync(root, { recursive: true, force: true });
  return { fileSystem: new NodeFileSystem(), root, cleanup };
});

fileSystemContract('SimFileSystem', () => {
  const fileSystem = new SimFileSystem({ seed: 1 });
  fileSystem.mkdirp('/contract');
  return { fileSystem, root: '/contract', cleanup: () => {} };
});
