/*
 * gsAppendTimeSeriesRow (APPEND_TIME_SERIES_ROW 129) against a store node (append.test.ts):
 * appends <count> rows (value = i) to time series AP_TS, about 3 ms apart, each keyed by the
 * node's clock; reads them back with a TQL query and checks that there are <count> of them, in
 * the order appended, with strictly increasing keys between this program's clock before the
 * first append and after the last (CLOCK_SLACK_MS either side: the node runs on this machine).
 * An append to a collection fails in the client, as against GridDB.
 *
 *   append <port> <cluster> <count>
 *
 * Prints "appended <count>" on stdout; any difference prints on stderr and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <time.h>
#include "conformance.h"

enum { CLOCK_SLACK_MS = 1000, APPEND_GAP_NS = 3 * 1000 * 1000 };

static long long nowMs(void) {
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	return (long long) now.tv_sec * 1000 + now.tv_nsec / 1000000;
}

int main(int argc, char **argv) {
	long count = 0;
	GSGridStore *store = NULL;
	GSTimeSeries *series = NULL;
	const int opened = openPointSeries(argc, argv, "append", "AP_TS", &count, &store, &series);
	if (opened != 0) return opened;
	const long long beforeMs = nowMs();
	for (long i = 0; i < count; i++) {
		Point point = { 0, (double) i };
		GSBool exists = GS_TRUE;
		CHECK(gsAppendTimeSeriesRow(series, &point, &exists));
		EXPECT(!exists, "append %ld: the key existed", i);
		const struct timespec gap = { 0, APPEND_GAP_NS };
		nanosleep(&gap, NULL);
	}
	const long long afterMs = nowMs();

	GSQuery *query = NULL;
	CHECK(gsQuery(series, "select * order by ts", &query));
	GSRowSet *rowSet = NULL;
	CHECK(gsFetch(query, GS_FALSE, &rowSet));
	long i = 0;
	GSTimestamp last = 0;
	while (gsHasNextRow(rowSet)) {
		Point point;
		CHECK(gsGetNextRow(rowSet, &point));
		EXPECT(point.value == (double) i, "row %ld has value %g", i, point.value);
		EXPECT(point.ts > last, "row %ld: key %lld not after %lld", i, (long long) point.ts,
				(long long) last);
		EXPECT(point.ts >= beforeMs - CLOCK_SLACK_MS && point.ts <= afterMs + CLOCK_SLACK_MS,
				"row %ld: key %lld outside %lld..%lld", i, (long long) point.ts, beforeMs, afterMs);
		last = point.ts;
		i++;
	}
	EXPECT(i == count, "%ld rows, expected %ld", i, count);
	gsCloseRowSet(&rowSet);
	gsCloseQuery(&query);

	GSCollection *collection = NULL;
	CHECK(gsPutCollection(store, "AP_COL", GS_GET_STRUCT_BINDING(Point), NULL, GS_FALSE,
			&collection));
	Point point = { 0, 1.0 };
	EXPECT(!GS_SUCCEEDED(gsAppendTimeSeriesRow(collection, &point, NULL)),
			"append to a collection succeeded");
	gsCloseContainer(&collection, GS_TRUE);

	printf("appended %ld\n", count);
	gsCloseContainer(&series, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
