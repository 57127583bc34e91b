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
#include <stdlib.h>
#include "conformance.h"

typedef struct { GSTimestamp ts; double value; } Point;
GS_STRUCT_BINDING(Point,
	GS_STRUCT_BINDING_KEY(ts, GS_TYPE_TIMESTAMP)
	GS_STRUCT_BINDING_ELEMENT(value, GS_TYPE_DOUBLE)
);

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: flush <port> <cluster> <count>\n");
		return 2;
	}
	const long count = atol(argv[3]);
	GSGridStore *store = NULL;
	CHECK(connectAdmin(argv[1], argv[2], &store));
	GSTimeSeries *series = NULL;
	CHECK(gsPutTimeSeries(store, "FL_TS", GS_GET_STRUCT_BINDING(Point), NULL, GS_FALSE, &series));
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
