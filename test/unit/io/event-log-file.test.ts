// Event log files: named store-YYYYMMDD-n.log, rotated by size and by date, at most fileCount kept.

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Clock } from '../../../lib/io/clock.ts';
import { EventLogFile } from '../../../lib/io/event-log-file.ts';
import { SimFileSystem } from '../../sim/sim-file-system.ts';

const DAY_MS = 86_400_000;
const JAN_2_2025_MS = Date.UTC(2025, 0, 2, 12);

function manualClock(startMs: number): Clock & { advanceMs(ms: number): void } {
  let nowMs = startMs;
  return {
    nowMs: () => nowMs, monotonicMs: () => nowMs,
    advanceMs: (ms: number) => { nowMs += ms; },
  };
}

function text(fileSystem: SimFileSystem, path: string): string {
  return new TextDecoder().decode(fileSystem.fileBytes(path));
}

const RECORD = `${'x'.repeat(99)}\n`; // 100 bytes

describe('event log files', () => {
  it('rotates by size and keeps at most fileCount files', () => {
    const fileSystem = new SimFileSystem({ seed: 1 });
    const clock = manualClock(JAN_2_2025_MS);
    const file = new EventLogFile({
      fileSystem, clock, directory: '/log', fileCount: 3, fileSizeBytesMax: 250,
    });
    for (let i = 0; i < 20; i += 1) file.write(RECORD);
    // 2 records a file: 10 files written, the newest 3 kept.
    assert.deepEqual(fileSystem.list('/log'),
      ['store-20250102-10.log', 'store-20250102-8.log', 'store-20250102-9.log']);
    assert.equal(text(fileSystem, '/log/store-20250102-10.log'), RECORD.repeat(2));
    assert.equal(file.currentPath, '/log/store-20250102-10.log');
    file.close();
  });

  it('begins a new file at each open, numbered after the day\'s last, and at a new date', () => {
    const fileSystem = new SimFileSystem({ seed: 2 });
    const clock = manualClock(JAN_2_2025_MS);
    const options = { fileSystem, clock, directory: '/log', fileCount: 10, fileSizeBytesMax: 10_000 };
    const first = new EventLogFile(options);
    first.write(RECORD);
    first.close();
    const second = new EventLogFile(options);
    second.write(RECORD);
    clock.advanceMs(DAY_MS);
    second.write(RECORD);
    second.close();
    assert.deepEqual(second.existingFiles().map((f) => f.name),
      ['store-20250102-1.log', 'store-20250102-2.log', 'store-20250103-1.log']);
  });

  it('deletes the oldest by date and number, not by name order', () => {
    const fileSystem = new SimFileSystem({ seed: 3 });
    fileSystem.mkdirp('/log');
    for (const name of ['store-20250101-9.log', 'store-20250101-10.log', 'store-20241231-3.log',
      'gs_stat.log', 'gsstartup.log']) {
      fileSystem.open(`/log/${name}`, 'create').close();
    }
    const file = new EventLogFile({
      fileSystem, clock: manualClock(JAN_2_2025_MS), directory: '/log', fileCount: 2,
      fileSizeBytesMax: 1000,
    });
    file.write(RECORD);
    assert.deepEqual(fileSystem.list('/log'),
      ['gs_stat.log', 'gsstartup.log', 'store-20250101-10.log', 'store-20250102-1.log']);
  });

  it('writes a record larger than a file alone in a file, whole', () => {
    const fileSystem = new SimFileSystem({ seed: 4 });
    const file = new EventLogFile({
      fileSystem, clock: manualClock(JAN_2_2025_MS), directory: '/log', fileCount: 5,
      fileSizeBytesMax: 50,
    });
    file.write('short\n');
    file.write(RECORD);
    file.write('short\n');
    assert.deepEqual(fileSystem.list('/log'),
      ['store-20250102-1.log', 'store-20250102-2.log', 'store-20250102-3.log']);
    assert.equal(text(fileSystem, '/log/store-20250102-2.log'), RECORD);
  });

  it('drops and counts records it cannot write, and goes on once it can', () => {
    const fileSystem = new SimFileSystem({ seed: 5 });
    const file = new EventLogFile({
      fileSystem, clock: manualClock(JAN_2_2025_MS), directory: '/log', fileCount: 5,
      fileSizeBytesMax: 10_000,
    });
    file.write(RECORD);
    fileSystem.setDiskFullAfterBytes(0);
    file.write(RECORD);
    file.write(RECORD);
    assert.equal(file.droppedRecordCount, 2);
    fileSystem.clearFaults();
    file.write('after\n');
    const files = file.existingFiles();
    const last = files[files.length - 1]!;
    assert.equal(text(fileSystem, `/log/${last.name}`), 'after\n');
    assert.equal(text(fileSystem, '/log/store-20250102-1.log'), RECORD);
  });

  it('tailLines: the whole lines in the last bytes of the current file, none before a record', () => {
    const fileSystem = new SimFileSystem({ seed: 4 });
    const clock = manualClock(JAN_2_2025_MS);
    const file = new EventLogFile({
      fileSystem, clock, directory: '/log', fileCount: 3, fileSizeBytesMax: 10_000,
    });
    assert.deepEqual(file.tailLines(1000), []);
    const lines = Array.from({ length: 5 }, (_, i) => `${i}${'x'.repeat(98)}`); // 100 bytes with \n
    for (const line of lines) file.write(`${line}\n`);
    assert.deepEqual(file.tailLines(10_000), lines);
    assert.deepEqual(file.tailLines(500), lines);
    // 250 bytes: the half of line 2 they begin in is left out.
    assert.deepEqual(file.tailLines(250), lines.slice(3));
    assert.deepEqual(file.tailLines(1), []);
    file.close();
    assert.deepEqual(file.tailLines(1000), []);
  });
});
