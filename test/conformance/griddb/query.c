/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/query.test.ts): TQL
 * through GridDB's C client: gsQuery / gsFetch (QUERY_TQL) with the fetch options GS_FETCH_LIMIT,
 * GS_FETCH_SIZE (partial fetch: FETCH_ROW_SET for the rest, gsCloseRowSet's CLOSE_ROW_SET) and
 * GS_FETCH_PARTIAL_EXECUTION, aggregation results, EXPLAIN, and gsUpdateCurrentRow /
 * gsDeleteCurrentRow on a row set fetched for update (UPDATE_ROW_BY_ID, DELETE_ROW_BY_ID), and
 * gsFetchAll (EXECUTE_MULTIPLE_QUERIES) of queries on a collection and a time series.
 *
 *   query <port> <clusterName>
 *
 * Works on the collection "Q01" (INTEGER key id, STRING s, DOUBLE v; rows 1..10), the time
 * series "QTS" (rows at 1..5 s) and the keyless collection "QNK". Prints
 * "keyless-update <GSResult>" for gsUpdateCurrentRow on "QNK", which store refuses (no row ids).
 * Exits 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#include "conformance.h"

static GSGridStore *store = NULL;

/* GS_FETCH_SIZE is an internal name in gridstore.h; its value is LIMIT + 1. */
static const GSFetchOption FETCH_SIZE = (GSFetchOption) (GS_FETCH_LIMIT + 1);

static const GSColumnInfo COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "v", GS_TYPE_DOUBLE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};
static const GSColumnInfo TS_COLUMNS[] = {
	{ "ts", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "v", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

static GSContainer *create(const char *name, GSContainerType type, const GSColumnInfo *columns,
		size_t count, GSBool keyed) {
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = name;
	info.type = type;
	info.columnCount = count;
	info.columnInfoList = columns;
	info.rowKeyAssigned = keyed;
	GSContainer *container = NULL;
	gsDropContainer(store, name);
	if (!GS_SUCCEEDED(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &container))) {
		printError(store);
		return NULL;
	}
	return container;
}

/* Runs `tql` with a fetch option (option < 0: none); `ids` gets the ids of the rows, in order. */
static int queryIds(GSContainer *c, const char *tql, int option, int32_t value,
		int32_t *ids, int32_t *count, int32_t *size) {
	GSQuery *query = NULL;
	GSRowSet *rowSet = NULL;
	GSRow *row = NULL;
	CHECK(gsQuery(c, tql, &query));
	if (option == GS_FETCH_PARTIAL_EXECUTION) {
		const GSBool enabled = value != 0;
		CHECK(gsSetFetchOption(query, GS_FETCH_PARTIAL_EXECUTION, &enabled, GS_TYPE_BOOL));
	} else if (option >= 0) {
		CHECK(gsSetFetchOption(query, (GSFetchOption) option, &value, GS_TYPE_INTEGER));
	}
	CHECK(gsFetch(query, GS_FALSE, &rowSet));
	*size = gsGetRowSetSize(rowSet);
	CHECK(gsCreateRowByContainer(c, &row));
	*count = 0;
	while (gsHasNextRow(rowSet)) {
		CHECK(gsGetNextRow(rowSet, row));
		CHECK(gsGetRowFieldAsInteger(row, 0, &ids[(*count)++]));
		EXPECT(*count <= 100, "too many rows");
	}
	gsCloseRow(&row);
	gsCloseRowSet(&rowSet);
	gsCloseQuery(&query);
	return 0;
}

static int expectIds(const int32_t *ids, int32_t count, int32_t first, int32_t last) {
	EXPECT(count == last - first + 1, "%d rows, expected %d", count, last - first + 1);
	for (int32_t i = 0; i < count; i++) {
		EXPECT(ids[i] == first + i, "row %d has id %d, expected %d", i, ids[i], first + i);
	}
	return 0;
}

static int aggregation(GSContainer *c, const char *tql, double expected, GSBool asLong) {
	GSQuery *query = NULL;
	GSRowSet *rowSet = NULL;
	GSAggregationResult *result = NULL;
	GSBool assigned = GS_FALSE;
	CHECK(gsQuery(c, tql, &query));
	CHECK(gsFetch(query, GS_FALSE, &rowSet));
	EXPECT(gsGetRowSetType(rowSet) == GS_ROW_SET_AGGREGATION_RESULT, "%s: not an aggregation",
			tql);
	EXPECT(gsHasNextRow(rowSet), "%s: no aggregation result", tql);
	CHECK(gsGetNextAggregation(rowSet, &result));
	if (asLong) {
		int64_t value = 0;
		CHECK(gsGetAggregationValueAsLong(result, &value, &assigned));
		EXPECT(assigned && value == (int64_t) expected, "%s: %lld", tql, (long long) value);
	} else {
		double value = 0;
		CHECK(gsGetAggregationValueAsDouble(result, &value, &assigned));
		EXPECT(assigned && fabs(value - expected) < 1e-9, "%s: %g", tql, value);
	}
	gsCloseAggregationResult(&result);
	gsCloseRowSet(&rowSet);
	gsCloseQuery(&query);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: query port clusterName\n");
		return 2;
	}
	CHECK(connectAdmin(argv[1], argv[2], &store));

	GSContainer *c = create("Q01", GS_CONTAINER_COLLECTION, COLUMNS, 3, GS_TRUE);
	EXPECT(c != NULL, "no Q01");
	GSRow *row = NULL;
	GSBool exists;
	CHECK(gsCreateRowByContainer(c, &row));
	for (int32_t id = 1; id <= 10; id++) {
		char s[16];
		snprintf(s, sizeof(s), "r%d", id);
		CHECK(gsSetRowFieldByInteger(row, 0, id));
		CHECK(gsSetRowFieldByString(row, 1, s));
		CHECK(gsSetRowFieldByDouble(row, 2, id * 1.5));
		CHECK(gsPutRow(c, NULL, row, &exists));
	}

	int32_t ids[100];
	int32_t count, size;
	/* 1. every row at once; then a fetch size under the row count: FETCH_ROW_SET for the rest */
	if (queryIds(c, "SELECT * ORDER BY id", -1, 0, ids, &count, &size) != 0) return 1;
	if (expectIds(ids, count, 1, 10) != 0) return 1;
	EXPECT(size == 10, "size %d", size);
	if (queryIds(c, "SELECT * WHERE id >= 3 ORDER BY id", FETCH_SIZE, 3, ids, &count, &size)
			!= 0) return 1;
	if (expectIds(ids, count, 3, 10) != 0) return 1;
	EXPECT(size == 8, "partial fetch: size %d, expected the total 8", size);
	/* 2. GS_FETCH_LIMIT, with and without a fetch size */
	if (queryIds(c, "SELECT * ORDER BY id", GS_FETCH_LIMIT, 4, ids, &count, &size) != 0) return 1;
	if (expectIds(ids, count, 1, 4) != 0) return 1;
	/* 3. partial execution: the rows come, the size is unknown (-1) as GridDB says */
	if (queryIds(c, "SELECT * WHERE id > 5 ORDER BY id", GS_FETCH_PARTIAL_EXECUTION, 1, ids,
			&count, &size) != 0) return 1;
	if (expectIds(ids, count, 6, 10) != 0) return 1;

	/* 4. aggregations */
	if (aggregation(c, "SELECT COUNT(*)", 10, GS_TRUE) != 0) return 1;
	if (aggregation(c, "SELECT MAX(id) WHERE id < 8", 7, GS_TRUE) != 0) return 1;
	if (aggregation(c, "SELECT SUM(v)", 82.5, GS_FALSE) != 0) return 1;
	if (aggregation(c, "SELECT AVG(v) WHERE id <= 2", 2.25, GS_FALSE) != 0) return 1;

	/* 5. EXPLAIN: rows of the query analysis (store numbers its entries from 0) */
	{
		GSQuery *query = NULL;
		GSRowSet *rowSet = NULL;
		GSQueryAnalysisEntry entry = GS_QUERY_ANALYSIS_ENTRY_INITIALIZER;
		CHECK(gsQuery(c, "EXPLAIN SELECT * WHERE id = 3", &query));
		CHECK(gsFetch(query, GS_FALSE, &rowSet));
		EXPECT(gsGetRowSetType(rowSet) == GS_ROW_SET_QUERY_ANALYSIS, "EXPLAIN: not an analysis");
		EXPECT(gsHasNextRow(rowSet), "EXPLAIN: no entry");
		CHECK(gsGetNextQueryAnalysis(rowSet, &entry));
		EXPECT(entry.id == 0 && entry.type != NULL && entry.type[0] != '\0',
				"EXPLAIN: entry %d \"%s\"", entry.id, entry.type == NULL ? "" : entry.type);
		gsCloseRowSet(&rowSet);
		gsCloseQuery(&query);
	}

	/* 6. a row set closed before its end (CLOSE_ROW_SET); the next query is answered */
	{
		GSQuery *query = NULL;
		GSRowSet *rowSet = NULL;
		int32_t two = 2;
		CHECK(gsQuery(c, "SELECT * ORDER BY id", &query));
		CHECK(gsSetFetchOption(query, FETCH_SIZE, &two, GS_TYPE_INTEGER));
		CHECK(gsFetch(query, GS_FALSE, &rowSet));
		CHECK(gsGetNextRow(rowSet, row));
		gsCloseRowSet(&rowSet);
		gsCloseQuery(&query);
	}

	/* 7. update and delete the current row of a row set fetched for update, partially */
	{
		GSQuery *query = NULL;
		GSRowSet *rowSet = NULL;
		int32_t two = 2;
		CHECK(gsSetAutoCommit(c, GS_FALSE));
		CHECK(gsQuery(c, "SELECT * WHERE id <= 5 ORDER BY id", &query));
		CHECK(gsSetFetchOption(query, FETCH_SIZE, &two, GS_TYPE_INTEGER));
		CHECK(gsFetch(query, GS_TRUE, &rowSet));
		while (gsHasNextRow(rowSet)) {
			int32_t id;
			CHECK(gsGetNextRow(rowSet, row));
			CHECK(gsGetRowFieldAsInteger(row, 0, &id));
			if (id % 2 == 0) {
				CHECK(gsDeleteCurrentRow(rowSet));
			} else {
				CHECK(gsSetRowFieldByString(row, 1, "updated"));
				CHECK(gsUpdateCurrentRow(rowSet, row));
			}
		}
		gsCloseRowSet(&rowSet);
		gsCloseQuery(&query);
		CHECK(gsCommit(c));
		CHECK(gsSetAutoCommit(c, GS_TRUE));
		for (int32_t id = 1; id <= 6; id++) {
			GSBool found;
			CHECK(gsGetRow(c, &id, row, &found));
			EXPECT(found == (id % 2 == 1 || id == 6), "row %d found %d", id, (int) found);
			if (found) {
				const GSChar *s;
				CHECK(gsGetRowFieldAsString(row, 1, &s));
				EXPECT(strcmp(s, id == 6 ? "r6" : "updated") == 0, "row %d: s \"%s\"", id, s);
			}
		}
	}
	gsCloseRow(&row);

	/* 8. a time series: partial fetch of rows without row ids */
	{
		GSContainer *ts = create("QTS", GS_CONTAINER_TIME_SERIES, TS_COLUMNS, 2, GS_TRUE);
		EXPECT(ts != NULL, "no QTS");
		CHECK(gsCreateRowByContainer(ts, &row));
		for (int64_t i = 1; i <= 5; i++) {
			CHECK(gsSetRowFieldByTimestamp(row, 0, i * 1000));
			CHECK(gsSetRowFieldByLong(row, 1, i * 10));
			CHECK(gsPutRow(ts, NULL, row, &exists));
		}
		GSQuery *query = NULL;
		GSRowSet *rowSet = NULL;
		int32_t two = 2;
		CHECK(gsQuery(ts, "SELECT * WHERE v >= 20", &query));
		CHECK(gsSetFetchOption(query, FETCH_SIZE, &two, GS_TYPE_INTEGER));
		CHECK(gsFetch(query, GS_FALSE, &rowSet));
		EXPECT(gsGetRowSetSize(rowSet) == 4, "QTS: size %d", gsGetRowSetSize(rowSet));
		int64_t expected = 20;
		while (gsHasNextRow(rowSet)) {
			int64_t v;
			CHECK(gsGetNextRow(rowSet, row));
			CHECK(gsGetRowFieldAsLong(row, 1, &v));
			EXPECT(v == expected, "QTS: v %lld, expected %lld", (long long) v, (long long) expected);
			expected += 10;
		}
		EXPECT(expected == 60, "QTS: rows up to %lld", (long long) expected);
		gsCloseRowSet(&rowSet);
		gsCloseQuery(&query);
		gsCloseRow(&row);
		gsCloseContainer(&ts, GS_TRUE);
	}

	/* 9. a collection without a row key: its rows have no row id in store */
	{
		GSContainer *nk = create("QNK", GS_CONTAINER_COLLECTION, COLUMNS, 3, GS_FALSE);
		EXPECT(nk != NULL, "no QNK");
		CHECK(gsCreateRowByContainer(nk, &row));
		CHECK(gsSetRowFieldByInteger(row, 0, 1));
		CHECK(gsPutRow(nk, NULL, row, &exists));
		CHECK(gsSetAutoCommit(nk, GS_FALSE));
		GSQuery *query = NULL;
		GSRowSet *rowSet = NULL;
		CHECK(gsQuery(nk, "SELECT *", &query));
		CHECK(gsFetch(query, GS_TRUE, &rowSet));
		CHECK(gsGetNextRow(rowSet, row));
		GSResult result = gsUpdateCurrentRow(rowSet, row);
		EXPECT(!GS_SUCCEEDED(result), "keyless update accepted");
		printf("keyless-update %d\n", (int) gsGetErrorCode(rowSet, 0));
		gsCloseRowSet(&rowSet);
		gsCloseQuery(&query);
		CHECK(gsAbort(nk));
		gsCloseRow(&row);
		gsCloseContainer(&nk, GS_TRUE);
	}

	/* 10. gsFetchAll (EXECUTE_MULTIPLE_QUERIES): rows, an aggregation and a partial fetch */
	{
		GSContainer *ts = NULL;
		CHECK(gsGetContainerGeneral(store, "QTS", &ts));
		EXPECT(ts != NULL, "no QTS");
		GSQuery *queries[3] = { NULL, NULL, NULL };
		int32_t two = 2;
		CHECK(gsQuery(c, "SELECT * WHERE id > 7 ORDER BY id", &queries[0]));
		CHECK(gsQuery(c, "SELECT COUNT(*)", &queries[1]));
		CHECK(gsQuery(ts, "SELECT * WHERE v >= 20", &queries[2]));
		CHECK(gsSetFetchOption(queries[2], FETCH_SIZE, &two, GS_TYPE_INTEGER));
		CHECK(gsFetchAll(store, queries, 3));
		GSRowSet *rowSet = NULL;
		CHECK(gsGetRowSet(queries[0], &rowSet));
		CHECK(gsCreateRowByContainer(c, &row));
		for (int32_t id = 8; id <= 10; id++) {
			int32_t got;
			EXPECT(gsHasNextRow(rowSet), "fetchAll: no row %d", id);
			CHECK(gsGetNextRow(rowSet, row));
			CHECK(gsGetRowFieldAsInteger(row, 0, &got));
			EXPECT(got == id, "fetchAll: row %d, expected %d", got, id);
		}
		EXPECT(!gsHasNextRow(rowSet), "fetchAll: rows after 10");
		gsCloseRow(&row);
		gsCloseRowSet(&rowSet);
		CHECK(gsGetRowSet(queries[1], &rowSet));
		GSAggregationResult *result = NULL;
		int64_t value = 0;
		GSBool assigned = GS_FALSE;
		CHECK(gsGetNextAggregation(rowSet, &result));
		CHECK(gsGetAggregationValueAsLong(result, &value, &assigned));
		EXPECT(assigned && value == 8, "fetchAll: COUNT(*) %lld", (long long) value);
		gsCloseAggregationResult(&result);
		gsCloseRowSet(&rowSet);
		CHECK(gsGetRowSet(queries[2], &rowSet));
		EXPECT(gsGetRowSetSize(rowSet) == 4, "fetchAll: QTS size %d", gsGetRowSetSize(rowSet));
		CHECK(gsCreateRowByContainer(ts, &row));
		int32_t tsRows = 0;
		while (gsHasNextRow(rowSet)) {
			CHECK(gsGetNextRow(rowSet, row));
			tsRows++;
		}
		EXPECT(tsRows == 4, "fetchAll: %d QTS rows", tsRows);
		gsCloseRow(&row);
		gsCloseRowSet(&rowSet);
		for (int i = 0; i < 3; i++) gsCloseQuery(&queries[i]);
		gsCloseContainer(&ts, GS_TRUE);
	}

	gsCloseContainer(&c, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
