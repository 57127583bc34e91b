/*
 * gsFlush (FLUSH_LOG 117) against a store node (flush.test.ts): puts <count> rows into time
 * series FL_TS (ts = 1000 × i, value = i / 2) one gsPutRow at a time in auto-commit, then calls
 * gsFlush on the container, which returns once the node has synced the partition's log.
 *
 *   flush <port> <cluster> <count>
 *
 * Prints "flushed <count>" on stdout after gsFlush succeeded; any failure prints the client's
 * error on stderr and exits 1.
 */
#include "conformance.h"

int main(int argc, char **argv) {
	long count = 0;
	GSGridStore *store = NULL;
	GSTimeSeries *series = NULL;
	const int opened = openPointSeries(argc, argv, "flush", "FL_TS", &count, &store, &series);
	if (opened != 0) return opened;
	for (long i = 1; i <= count; i++) {
		Point point = { i * 1000, i / 2.0 };
		GSBool exists;
		CHECK(gsPutRow(series, NULL, &point, &exists));
	}
	CHECK(gsFlush(series));
	printf("flushed %ld\n", count);
	fflush(stdout);
	gsCloseContainer(&series, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
