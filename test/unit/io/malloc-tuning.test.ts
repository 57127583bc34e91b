// Loading the malloc tuning addon (lib/io/malloc-tuning.ts): a missing or wrong addon is a reason,
// never a throw, so the node starts without it; the built one fixes the threshold on glibc.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  MALLOC_MMAP_THRESHOLD_BYTES, fixMallocMmapThreshold, loadMallocTuning, mallocMappedBytes,
} from '../../../lib/io/malloc-tuning.ts';
import { nativeAddonPaths } from '../../../lib/io/native-addon-paths.ts';

describe('malloc tuning', () => {
  it('says why when there is no addon, or it is not one', () => {
    assert.equal(loadMallocTuning([]), 'addon not built (nowhere to look)');
    assert.equal(loadMallocTuning(['/nonexistent/malloc_tuning.node']),
      'addon not built (no /nonexistent/malloc_tuning.node)');
    const root = mkdtempSync(join(tmpdir(), 'store-malloc-tuning-'));
    try {
      const path = join(root, 'malloc_tuning.node');
      writeFileSync(path, 'not a shared object');
      assert.match(String(loadMallocTuning([path])), /failed to load/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('fixes the threshold with the built addon on glibc', (t) => {
    const addon = loadMallocTuning(nativeAddonPaths('malloc_tuning'));
    if (typeof addon === 'string' || addon.mappedBytes() < 0) {
      t.skip(typeof addon === 'string' ? addon : 'the C library is not glibc');
      return;
    }
    assert.equal(fixMallocMmapThreshold(), undefined);
    assert.ok(mallocMappedBytes()! >= 0);
    assert.throws(() => addon.mmapThresholdSet(0), TypeError);
    assert.equal(addon.mmapThresholdSet(MALLOC_MMAP_THRESHOLD_BYTES), true);
  });
});
