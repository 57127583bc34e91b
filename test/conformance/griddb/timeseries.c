/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/timeseries.test.ts):
 * the time-series calls of GridDB's C client on the time series "TS01" (ts TIMESTAMP key, v DOUBLE,
 * n LONG; rows at 10, 20, 30, 40 s with v = 1, 2, 3, 4 and n = 10, 20, 30, 40):
 * gsGetRowByBaseTime (GET_TIME_SERIES_ROW_RELATED) with each time operator,
 * gsInterpolateTimeSeriesRow (INTERPOLATE_TIME_SERIES_ROW), gsAggregateTimeSeries
 * (AGGREGATE_TIME_SERIES), gsQueryByTimeSeriesRange / gsQueryByTimeSeriesOrderedRange
 * (QUERY_TIME_SERIES_RANGE, also through gsFetchAll) and gsQueryByTimeSeriesSampling
 * (QUERY_TIME_SERIES_SAMPLING), and the error GridDB gives for sampling by YEAR or MONTH
 * (printed: "sampling-unit-<unit> <GSResult>").
 *
 *   timeseries <port> <clusterName>
 *
 * Exits 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#include "conformance.h"

static GSGridStore *store = NULL;

static const GSColumnInfo COLUMNS[] = {
	{ "ts", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "v", GS_TYPE_DOUBLE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "n", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

static GSTimeSeries *ts = NULL;
static GSRow *row = NULL;

static int related(GSTimestamp base, GSTimeOperator op, GSTimestamp expected) {
	GSBool exists;
	CHECK(gsGetRowByBaseTime(ts, base, op, row, &exists));
	if (expected < 0) {
		EXPECT(!exists, "operator %d at %lld: a row", (int) op, (long long) base);
		return 0;
	}
	EXPECT(exists, "operator %d at %lld: no row", (int) op, (long long) base);
	GSTimestamp got;
	CHECK(gsGetRowFieldAsTimestamp(row, 0, &got));
	EXPECT(got == expected, "operator %d at %lld: %lld", (int) op, (long long) base,
			(long long) got);
	return 0;
}

static int aggregate(GSAggregation aggregation, const char *column, double expected) {
	GSAggregationResult *result = NULL;
	double value = 0;
	CHECK(gsAggregateTimeSeries(ts, 15000, 40000, column, aggregation, &result));
	EXPECT(result != NULL, "aggregation %d: no result", (int) aggregation);
	EXPECT(gsGetAggregationValue(result, &value, GS_TYPE_DOUBLE), "aggregation %d: no double",
			(int) aggregation);
	EXPECT(fabs(value - expected) < 1e-9, "aggregation %d: %g, expected %g", (int) aggregation,
			value, expected);
	gsCloseAggregationResult(&result);
	return 0;
}

/* The timestamps of a query's rows, in order, against `expected` (count of them). */
static int rowsOf(GSQuery *query, const GSTimestamp *expected, size_t count, GSBool fetch) {
	GSRowSet *rowSet = NULL;
	if (fetch) {
		CHECK(gsFetch(query, GS_FALSE, &rowSet));
	} else {
		CHECK(gsGetRowSet(query, &rowSet));
	}
	size_t i = 0;
	while (gsHasNextRow(rowSet)) {
		GSTimestamp got;
		CHECK(gsGetNextRow(rowSet, row));
		CHECK(gsGetRowFieldAsTimestamp(row, 0, &got));
		EXPECT(i < count && got == expected[i], "row %d at %lld", (int) i, (long long) got);
		i++;
	}
	EXPECT(i == count, "%d rows, expected %d", (int) i, (int) count);
	gsCloseRowSet(&rowSet);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: timeseries port clusterName\n");
		return 2;
	}
	CHECK(connectAdmin(argv[1], argv[2], &store));
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = "TS01";
	info.type = GS_CONTAINER_TIME_SERIES;
	info.columnCount = 3;
	info.columnInfoList = COLUMNS;
	info.rowKeyAssigned = GS_TRUE;
	CHECK(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &ts));
	CHECK(gsCreateRowByContainer(ts, &row));
	for (int i = 1; i <= 4; i++) {
		GSBool exists;
		CHECK(gsSetRowFieldByTimestamp(row, 0, i * 10000));
		CHECK(gsSetRowFieldByDouble(row, 1, i));
		CHECK(gsSetRowFieldByLong(row, 2, i * 10));
		CHECK(gsPutRow(ts, NULL, row, &exists));
	}

	/* rows related to a time */
	if (related(20000, GS_TIME_OPERATOR_NEXT, 20000) != 0) return 1;
	if (related(20000, GS_TIME_OPERATOR_NEXT_ONLY, 30000) != 0) return 1;
	if (related(20000, GS_TIME_OPERATOR_PREVIOUS, 20000) != 0) return 1;
	if (related(20000, GS_TIME_OPERATOR_PREVIOUS_ONLY, 10000) != 0) return 1;
	if (related(40001, GS_TIME_OPERATOR_NEXT, -1) != 0) return 1;

	/* interpolation: half-way between 20 s (v 2) and 30 s (v 3) */
	{
		GSBool exists;
		double v;
		CHECK(gsInterpolateTimeSeriesRow(ts, 25000, "v", row, &exists));
		EXPECT(exists, "interpolation: no row");
		CHECK(gsGetRowFieldAsDouble(row, 1, &v));
		EXPECT(fabs(v - 2.5) < 1e-9, "interpolation: v %g", v);
		CHECK(gsInterpolateTimeSeriesRow(ts, 50000, "v", row, &exists));
		EXPECT(!exists, "interpolation after the last row: a row");
	}

	/* aggregations over 15..40 s: rows 20, 30, 40 */
	if (aggregate(GS_AGGREGATION_MINIMUM, "v", 2) != 0) return 1;
	if (aggregate(GS_AGGREGATION_MAXIMUM, "n", 40) != 0) return 1;
	if (aggregate(GS_AGGREGATION_TOTAL, "v", 9) != 0) return 1;
	if (aggregate(GS_AGGREGATION_AVERAGE, "v", 3) != 0) return 1;
	if (aggregate(GS_AGGREGATION_COUNT, NULL, 3) != 0) return 1;
	{
		GSAggregationResult *result = NULL;
		CHECK(gsAggregateTimeSeries(ts, 50000, 60000, "v", GS_AGGREGATION_MAXIMUM, &result));
		EXPECT(result == NULL, "aggregation of no rows: a result");
	}

	/* ranges, ascending and descending (open start), also through gsFetchAll */
	{
		static const GSTimestamp middle[] = { 20000, 30000 };
		static const GSTimestamp descending[] = { 30000, 20000, 10000 };
		GSQuery *query = NULL;
		CHECK(gsQueryByTimeSeriesRange(ts, 15000, 30000, &query));
		if (rowsOf(query, middle, 2, GS_TRUE) != 0) return 1;
		gsCloseQuery(&query);
		const GSTimestamp end = 35000;
		CHECK(gsQueryByTimeSeriesOrderedRange(ts, NULL, &end, GS_ORDER_DESCENDING, &query));
		if (rowsOf(query, descending, 3, GS_TRUE) != 0) return 1;
		CHECK(gsFetchAll(store, &query, 1));
		if (rowsOf(query, descending, 3, GS_FALSE) != 0) return 1;
		gsCloseQuery(&query);
	}

	/* sampling every 5 s from 10 to 30 s, v interpolated, n the previous row's */
	{
		static const GSTimestamp times[] = { 10000, 15000, 20000, 25000, 30000 };
		static const double values[] = { 1, 1.5, 2, 2.5, 3 };
		static const int64_t ns[] = { 10, 10, 20, 20, 30 };
		const GSChar *const columns[] = { "v" };
		GSQuery *query = NULL;
		GSRowSet *rowSet = NULL;
		CHECK(gsQueryByTimeSeriesSampling(ts, 10000, 30000, columns, 1,
				GS_INTERPOLATION_LINEAR_OR_PREVIOUS, 5, GS_TIME_UNIT_SECOND, &query));
		CHECK(gsFetch(query, GS_FALSE, &rowSet));
		for (int i = 0; i < 5; i++) {
			GSTimestamp t;
			double v;
			int64_t n;
			EXPECT(gsHasNextRow(rowSet), "sampling: no row %d", i);
			CHECK(gsGetNextRow(rowSet, row));
			CHECK(gsGetRowFieldAsTimestamp(row, 0, &t));
			CHECK(gsGetRowFieldAsDouble(row, 1, &v));
			CHECK(gsGetRowFieldAsLong(row, 2, &n));
			EXPECT(t == times[i] && fabs(v - values[i]) < 1e-9 && n == ns[i],
					"sampling row %d: %lld %g %lld", i, (long long) t, v, (long long) n);
		}
		EXPECT(!gsHasNextRow(rowSet), "sampling: more than 5 rows");
		gsCloseRowSet(&rowSet);
		gsCloseQuery(&query);
	}

	/* sampling by YEAR or MONTH: refused as GridDB refuses it (TimeSeries::sample) */
	{
		static const GSTimeUnit units[] = { GS_TIME_UNIT_YEAR, GS_TIME_UNIT_MONTH };
		const GSChar *const columns[] = { "v" };
		for (int i = 0; i < 2; i++) {
			GSQuery *query = NULL;
			GSRowSet *rowSet = NULL;
			CHECK(gsQueryByTimeSeriesSampling(ts, 10000, 30000, columns, 1,
					GS_INTERPOLATION_LINEAR_OR_PREVIOUS, 1, units[i], &query));
			const GSResult result = gsFetch(query, GS_FALSE, &rowSet);
			EXPECT(!GS_SUCCEEDED(result), "sampling by unit %d: answered", (int) units[i]);
			printf("sampling-unit-%d %d\n", (int) units[i], (int) result);
			gsCloseQuery(&query);
		}
	}

	gsCloseRow(&row);
	gsCloseContainer(&ts, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
