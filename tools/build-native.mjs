// Builds the N-API addons of lib/io/native/ in two node-gyp runs: the C ones of native/binding.gyp,
// punch_hole.node, which punches holes in data files (DESIGN.md 3.4), home_lock.node, the flock(2)
// that locks a node's home (lib/io/home-lock.ts), and malloc_tuning.node, glibc's mallopt for the
// node's RSS (lib/io/malloc-tuning.ts); then the C++17 one of
// native/double-text/binding.gyp, double_text.node, gs_export's printer of doubles
// (lib/io/double-text.ts). Apart, so that a machine with a C compiler but no C++ one keeps the
// first three. It runs as the root `install` script, so `npm ci` and `npm install` build them, and by
// hand:
//
//   npm run build:native
//
// It must never fail an install: the engine works without the addons, only it stops releasing disk
// space and locks its home with a weaker pid file, and gs_export prints doubles more slowly. Any
// problem prints one warning line per run and exits 0.
// Plain JavaScript, not TypeScript, so it runs before (or without) the dev dependencies.
//
// node-gyp: $STORE_NODE_GYP if set, else the one npm ships (npm passes its path as
// npm_config_node_gyp; outside npm, found next to npm-cli.js or under the running node's prefix).
// Headers: the running Node's own, passed as --nodedir so node-gyp never tries to download them
// (there may be no network). Looked for in the `nodedir` npm config, the prefix of
// process.execPath, /usr/local and /usr: the first with include/node/node_api.h of the running
// version wins, else the first with any version's (N-API is ABI-stable).
// A build taking over BUILD_TIMEOUT_MS is killed, compilers and all.

import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUILD_TIMEOUT_MS = 30_000;
const projectRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const nativeDirectory = join(projectRoot, 'lib', 'io', 'native');
const doubleTextDirectory = join(nativeDirectory, 'double-text');
/**
 * The node-gyp runs: each directory's binding.gyp, each addon it builds and a function that addon
 * must export, and what is lost without them.
 */
const runs = [
  {
    directory: nativeDirectory,
    addons: [
      { path: join(nativeDirectory, 'build', 'Release', 'punch_hole.node'), exported: 'punchHole' },
      { path: join(nativeDirectory, 'build', 'Release', 'home_lock.node'), exported: 'lockExclusive' },
      { path: join(nativeDirectory, 'build', 'Release', 'malloc_tuning.node'), exported: 'mmapThresholdSet' },
    ],
    without: 'the engine will work but will not release unused disk space in data files, ' +
      'will lock its home with a pid file, which cannot see a node of another PID namespace, ' +
      'and its memory will swing more with large replies',
  },
  {
    directory: doubleTextDirectory,
    addons: [
      { path: join(doubleTextDirectory, 'build', 'Release', 'double_text.node'), exported: 'spliceDoubles' },
    ],
    without: 'gs_export will print the same DOUBLE and FLOAT text with JavaScript, more slowly ' +
      '(it needs a C++17 compiler, g++)',
  },
];

/** Ends one run with its warning; the other runs go on. */
function giveUp(reason) {
  throw new Error(reason);
}

function findNodeGyp() {
  // STORE_NODE_GYP overrides, because npm sets npm_config_node_gyp to its own copy whatever the
  // user configured; tests also use it to make the build fail.
  const configured = process.env.STORE_NODE_GYP || process.env.npm_config_node_gyp;
  if (configured) return configured; // use it or fail: a wrong node-gyp is not silently replaced
  const candidates = [];
  if (process.env.npm_execpath) {
    candidates.push(join(dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp',
      'bin', 'node-gyp.js'));
  }
  const prefix = join(dirname(process.execPath), '..');
  const npmDirectories = [join(prefix, 'lib', 'node_modules', 'npm'),
    join(prefix, 'node_modules', 'npm')];
  for (const npmDirectory of npmDirectories) {
    candidates.push(join(npmDirectory, 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  }
  try {
    candidates.push(createRequire(import.meta.url).resolve('node-gyp/bin/node-gyp.js'));
  } catch {
    // not a dependency of this project; npm's copy is the usual one
  }
  return candidates.find((candidate) => existsSync(candidate));
}

/** The version in <dir>/include/node/node_version.h, or undefined if the headers are not there. */
function headerVersion(nodeDirectory) {
  const include = join(nodeDirectory, 'include', 'node');
  if (!existsSync(join(include, 'node_api.h')) || !existsSync(join(include, 'common.gypi'))) {
    return undefined;
  }
  if (!existsSync(join(include, 'node_version.h'))) return 'unknown';
  const text = readFileSync(join(include, 'node_version.h'), 'utf8');
  const part = (name) => text.match(new RegExp(`#define NODE_${name}_VERSION (\\d+)`))?.[1];
  return `${part('MAJOR')}.${part('MINOR')}.${part('PATCH')}`;
}

function findNodeDirectory() {
  const candidates = [process.env.npm_config_nodedir, join(dirname(process.execPath), '..'),
    '/usr/local', '/usr'].filter((candidate) => candidate).map((candidate) => resolve(candidate));
  const found = candidates.map((directory) => ({ directory, version: headerVersion(directory) }))
    .filter(({ version }) => version !== undefined);
  // N-API is ABI-stable, so another version's headers would do; the running one's are preferred.
  return found.find(({ version }) => `v${version}` === process.version) ?? found[0];
}

function firstErrorLine(logPath) {
  const boilerplate = /^gyp ERR! (stack|cwd|command|node -v|node-gyp -v|not ok|System)/;
  const lines = readFileSync(logPath, 'utf8').split('\n').map((line) => line.trim());
  return lines.find((line) => /error/i.test(line) && !boilerplate.test(line)) ?? 'no message';
}

/**
 * Runs node-gyp in a process group of its own, so a timeout (or an interrupted install) kills the
 * compilers it started too, not only node-gyp.
 */
function runLogged(command, args, logPath) {
  const logFd = openSync(logPath, 'w');
  return new Promise((resolvePromise) => {
    const child = spawn(command, args, {
      cwd: projectRoot, stdio: ['ignore', logFd, logFd], detached: true,
    });
    closeSync(logFd);
    let timedOut = false;
    const killGroup = () => {
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, BUILD_TIMEOUT_MS);
    const interrupted = () => {
      killGroup();
      process.exit(130);
    };
    process.once('SIGINT', interrupted).once('SIGTERM', interrupted);
    const settle = (result) => {
      clearTimeout(timer);
      process.off('SIGINT', interrupted).off('SIGTERM', interrupted);
      resolvePromise({ ...result, timedOut });
    };
    child.once('error', (error) => settle({ error }));
    child.once('exit', (status, signal) => settle({ status, signal }));
  });
}

/** One node-gyp run of `directory`'s binding.gyp; a problem throws, saying what it was. */
async function build({ directory, addons }) {
  const startMs = performance.now();
  // node-gyp's output goes to a file, where a failure can be read in full; the warning quotes a line.
  const logPath = join(directory, 'build-native.log');
  // A failed build must not leave an older addon behind to be loaded as if this one had worked.
  rmSync(join(directory, 'build'), { recursive: true, force: true });
  if (process.platform !== 'linux') {
    giveUp(`this build is Linux-only (fallocate, flock), not ${process.platform}`);
  }
  const nodeGyp = findNodeGyp();
  if (nodeGyp === undefined) giveUp('node-gyp not found; npm normally ships it');
  const nodeDirectory = findNodeDirectory();
  if (nodeDirectory === undefined) giveUp('no Node headers (include/node/node_api.h) found');
  const gypArgs = ['rebuild', '--directory', directory,
    `--nodedir=${nodeDirectory.directory}`, '--loglevel=warn'];
  // npm's node-gyp is a .js file run by this node; a configured one may be an executable.
  const viaNode = /\.[cm]?js$/.test(nodeGyp);
  const [command, args] = viaNode
    ? [process.execPath, [nodeGyp, ...gypArgs]]
    : [nodeGyp, gypArgs];
  const result = await runLogged(command, args, logPath);
  if (result.error !== undefined) giveUp(`node-gyp: ${result.error.message}; see ${logPath}`);
  if (result.timedOut) giveUp(`node-gyp took over ${BUILD_TIMEOUT_MS / 1000}s; see ${logPath}`);
  if (result.status !== 0) {
    const exit = result.status ?? result.signal;
    giveUp(`node-gyp ${nodeGyp} exited ${exit}: ${firstErrorLine(logPath)}; see ${logPath}`);
  }
  for (const { path, exported } of addons) {
    try {
      const addon = createRequire(import.meta.url)(path);
      if (typeof addon[exported] !== 'function') throw new Error(`${exported} missing`);
    } catch (error) {
      rmSync(join(directory, 'build'), { recursive: true, force: true });
      giveUp(`${path} built but does not load: ` +
        `${error instanceof Error ? error.message : String(error)}`);
    }
  }
  const built = addons.map(({ path }) => path).join(' and ');
  const elapsedS = ((performance.now() - startMs) / 1000).toFixed(1);
  console.log(`store: built ${built} in ${elapsedS}s with headers of Node ` +
    `${nodeDirectory.version} from ${nodeDirectory.directory}`);
}

/**
 * Whether a run's addons are there, load, and are newer than every source of its folder
 * (binding.gyp, *.c, *.cc): then it is left as it is, because npm runs this script again whenever
 * it links the checkout as a package (`npx gs_x` with a new cache), and a rebuild first removes the
 * addons that running processes load.
 */
function upToDate({ directory, addons }) {
  const sources = readdirSync(directory, { withFileTypes: true })
    .filter((entry) => entry.isFile() && /^binding\.gyp$|\.(c|cc)$/.test(entry.name))
    .map((entry) => statSync(join(directory, entry.name)).mtimeMs);
  const newestSourceMs = Math.max(0, ...sources);
  return addons.every(({ path, exported }) => {
    if (!existsSync(path) || statSync(path).mtimeMs < newestSourceMs) return false;
    try {
      return typeof createRequire(import.meta.url)(path)[exported] === 'function';
    } catch {
      return false;
    }
  });
}

const force = process.argv.includes('--force');
for (const run of runs) {
  if (!force && upToDate(run)) {
    const names = run.addons.map(({ path }) => basename(path)).join(' and ');
    console.log(`store: ${names} up to date (\`npm run build:native\` rebuilds them)`);
    continue;
  }
  try {
    await build(run);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const names = run.addons.map(({ path }) => basename(path)).join(' and ');
    console.warn(`store: warning: ${names} not built (${reason}); ${run.without}`);
  }
}
