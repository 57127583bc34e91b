// Preloaded (node --import) into a server process a benchmark starts: the process exits when its
// stdin closes, which happens when the benchmark that holds the other end dies, however it dies
// (even SIGKILL, which runs no exit handler). The node itself is left as it is.
// Plain JavaScript, so it loads without tsx beside the node compiled in dist/ (server-form.ts).

const ORPHAN_EXIT_CODE = 3;

process.stdin.on('close', () => process.exit(ORPHAN_EXIT_CODE));
process.stdin.resume();
