// Every command answers --help and --version (issue 13, point 6): the help has the usage, every
// option, the exit codes and an example, and exits 0; --version prints package.json's version;
// an unknown option exits 2 naming it and pointing at --help. The package's commands run the
// way npm links them (a symlink with the command's name to tools/bin/launch.mjs), the other
// tools as `node --import tsx tools/<name>.ts`; neither needs GS_HOME for this.

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, describe, it } from 'node:test';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as
  { version: string }).version;
/** No command may take longer than this to print its help. */
const RUN_TIMEOUT_MS = 60_000;

/** The package's commands ("bin" of package.json), each with one option its help must list. */
const PACKAGE_COMMANDS: Record<string, string[]> = {
  'gs_startnode': ['--user', '--wait', '--releaseUnusedFileBlocks'],
  'gs_stopnode': ['--user', '--server', '--port', '--force', '--kill', '--wait'],
  'gs_stat': ['--user', '--server', '--port', '--csv'],
  'gs_adduser': ['--password'],
  'gs_deluser': [],
  'gs_passwd': ['--password'],
  'gs_checkpoint': ['--user', '--server', '--port', '--on', '--off', '--manual', '--wait'],
  'gs_logconf': ['--user', '--server', '--port', 'CATEGORY', 'LEVEL'],
  'gs_logs': ['--user', '--server', '--port', '--length', '--ignore', 'SEARCH_STR1'],
  'gs_joincluster': ['--user', '--server', '--port', '--clusterName', '--nodeNum', '--wait'],
  'gs_leavecluster': ['--user', '--server', '--port', '--force', '--wait'],
  'gs_stopcluster': ['--user', '--server', '--port', '--wait'],
  'gs_config': ['--user', '--server', '--port', '--address-type'],
  'gs_partition': ['--user', '--server', '--port', '--partitionId', '--loss', '--address-type'],
  'gs_paramconf': ['--user', '--server', '--port', '--show', '--set'],
  'gs_export': ['--user', '--server', '--all', '--container', '--containerregex', '--filterfile'],
  'gs_import': ['--user', '--server', '--all', '--append', '--replace', '--force', '--schemaCheckSkip'],
  'gs_backup': ['--user', '--server', '--port', '--wait', '--mode', 'BACKUPNAME'],
  'gs_backuplist': ['--directory', '--user', 'BACKUPNAME'],
  'gs_restore': ['--directory', '--test', 'BACKUPNAME'],
  'gs_sh': ['--continue', 'SCRIPT.gsh'],
  'store-node': ['--releaseUnusedFileBlocks'],
  'store-webapi': ['--port'],
  'xlog-truncate': ['--home', '--txnlog', '--partition', '--generation', '--offset', '--save'],
};
/** The other tools, run as scripts. */
const SCRIPT_TOOLS: Record<string, string[]> = {
  'xlog-dump': ['--txnlog', '--home', '--partition', '--from-lsn', '--limit', '--json', '--hex'],
  'cplog-dump': ['--data', '--home', '--partition', '--interval', '--entries', '--json'],
  'dat-check': ['--data', '--home', '--partition', '--interval', '--split-count'],
};

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

const binDirectory = mkdtempSync(join(tmpdir(), 'store-bin-'));
for (const name of Object.keys(PACKAGE_COMMANDS)) {
  symlinkSync(join(ROOT, 'tools', 'bin', 'launch.mjs'), join(binDirectory, name));
}

const TSX_FALLBACK_LINE = /^store: running tools\/\S+ from source through tsx .*\n/;

function run(name: string, args: string[]): Promise<Run> {
  const argv = name in PACKAGE_COMMANDS ? [join(binDirectory, name), ...args]
    : ['--import', 'tsx', join(ROOT, 'tools', `${name}.ts`), ...args];
  const env = { ...process.env };
  delete env['GS_HOME'];
  delete env['GS_LOG'];
  return new Promise((resolve) => {
    execFile(process.execPath, argv, { cwd: ROOT, env, timeout: RUN_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        // After an edit the launcher runs the sources through tsx and says so (tool-entry.mjs):
        // that line is the launcher's, not the command's.
        resolve({ code, stdout, stderr: stderr.replace(TSX_FALLBACK_LINE, '') });
      });
  });
}

describe('commands: --help, --version, bad usage', { timeout: 600_000 }, () => {
  after(() => rmSync(binDirectory, { recursive: true, force: true }));

  for (const [name, options] of Object.entries({ ...PACKAGE_COMMANDS, ...SCRIPT_TOOLS })) {
    it(`${name} --help, --version, and an unknown option`, async () => {
      const help = await run(name, ['--help']);
      assert.equal(help.code, 0, help.stderr);
      assert.match(help.stdout, new RegExp(`^Usage: ${name} `));
      for (const option of [...options, '--help', '--version']) {
        assert.ok(help.stdout.includes(option), `${name} --help lacks ${option}:\n${help.stdout}`);
      }
      assert.match(help.stdout, /\nExit codes:\n {2}0 +\S.*\n {2}1 +\S/);
      assert.match(help.stdout, /\n {2}2 +bad usage|\n {2}2 +bad arguments/);
      assert.match(help.stdout, new RegExp(`\\nExample:\\n {2}(\\S+=\\S+ )?${name}( |\\n)`));
      assert.equal(help.stderr, '');
      assert.deepEqual(await run(name, ['-h']), help);

      const version = await run(name, ['--version']);
      assert.deepEqual(version, { code: 0, stdout: `${name} (store) ${VERSION}\n`, stderr: '' });

      const bad = await run(name, ['--no-such-option']);
      assert.equal(bad.code, 2, bad.stdout + bad.stderr);
      assert.match(bad.stderr, /Unknown option '--no-such-option'/);
      assert.ok(bad.stderr.includes(`Try '${name} --help'`), bad.stderr);
    });
  }
});
