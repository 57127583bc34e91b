/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/rows.test.ts): rows
 * through GridDB's C client in auto-commit mode: gsPutRow (PUT_ROW), gsGetRow (GET_ROW),
 * gsDeleteRow (DELETE_ROW), on the collection "Rows01" (an INTEGER key and a column of every
 * type the client can encode: no GEOMETRY).
 *
 *   rows <port> <clusterName> put|check|edges|geometry-put|geometry-get|delete
 *
 * put: creates "Rows01" and puts row 1 (edge values: LONG extremes, NaN, -0, empty string and
 * arrays, TIMESTAMP(6/9) with sub-millisecond parts) and row 2 (NULLs wherever allowed), then
 * puts row 2 again (exists must be true the second time), then rows 10..14 with
 * gsPutMultipleRows (PUT_MULTIPLE_ROWS); and on the time series "TS_Rows" (TIMESTAMP key)
 * puts two rows, gets one by its timestamp and deletes the other.
 * check: gets rows 1 and 2 and compares every field; row 3 is not found.
 * edges: the collection "Rows02" with TIMESTAMP(6/9) and array edges (see edges() below).
 * geometry-put, geometry-get: what an application sees of GEOMETRY (see geometry() below).
 * delete: deletes row 1 (exists true), again (exists false); drops "Rows01" and prints
 * "put-after-drop <GSResult>" for a put through the handle of the dropped container.
 * Exits 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#include "conformance.h"

enum { ID, S, B, BY, SH, I, L, F, D, T, TU, TN, BL, LA, SA, NN, COLUMN_COUNT };

static const GSColumnInfo COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "b", GS_TYPE_BOOL, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "by", GS_TYPE_BYTE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "sh", GS_TYPE_SHORT, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "i", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "l", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "f", GS_TYPE_FLOAT, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "d", GS_TYPE_DOUBLE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "t", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "tu", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT,
			GS_TYPE_OPTION_NULLABLE | GS_TYPE_OPTION_TIME_MICRO },
	{ "tn", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT,
			GS_TYPE_OPTION_NULLABLE | GS_TYPE_OPTION_TIME_NANO },
	{ "bl", GS_TYPE_BLOB, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "la", GS_TYPE_LONG_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "sa", GS_TYPE_STRING_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "nn", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
};

static const uint8_t BLOB_BYTES[] = { 0, 1, 0xfe, 0xff };
static const int64_t LONGS[] = { INT64_MIN, -1, 0, INT64_MAX };
static const GSChar *const STRINGS[] = { "", "a", "\xc3\xa9t\xc3\xa9" };

static const GSColumnInfo TS_COLUMNS[] = {
	{ "ts", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "v", GS_TYPE_DOUBLE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

/* The time series "TS_Rows": put two rows, get one by its timestamp, delete the other. */
static int timeSeries(GSGridStore *store) {
	GSContainerInfo tsInfo = GS_CONTAINER_INFO_INITIALIZER;
	tsInfo.name = "TS_Rows";
	tsInfo.type = GS_CONTAINER_TIME_SERIES;
	tsInfo.columnCount = 3;
	tsInfo.columnInfoList = TS_COLUMNS;
	tsInfo.rowKeyAssigned = GS_TRUE;
	GSContainer *ts = NULL;
	GSRow *row = NULL;
	GSBool exists = GS_FALSE;
	CHECK(gsPutContainerGeneral(store, NULL, &tsInfo, GS_FALSE, &ts));
	CHECK(gsCreateRowByContainer(ts, &row));
	for (int k = 0; k < 2; k++) {
		CHECK(gsSetRowFieldByTimestamp(row, 0, 1700000000000 + k));
		CHECK(gsSetRowFieldByDouble(row, 1, 20.5 + k));
		if (k == 0) CHECK(gsSetRowFieldByString(row, 2, "ok"));
		else CHECK(gsSetRowFieldNull(row, 2));
		CHECK(gsPutRow(ts, NULL, row, &exists));
		EXPECT(!exists, "time-series row %d existed", k);
	}
	GSTimestamp key = 1700000000001;
	CHECK(gsGetRow(ts, &key, row, &exists));
	EXPECT(exists, "time-series row not found");
	double v; GSBool isNull;
	CHECK(gsGetRowFieldAsDouble(row, 1, &v)); EXPECT(v == 21.5, "v = %g", v);
	CHECK(gsGetRowFieldNull(row, 2, &isNull)); EXPECT(isNull, "s not null");
	key = 1700000000000;
	CHECK(gsDeleteRow(ts, &key, &exists)); EXPECT(exists, "time-series row 0 not deleted");
	CHECK(gsGetRow(ts, &key, row, &exists)); EXPECT(!exists, "time-series row 0 still there");
	gsCloseRow(&row);
	gsCloseContainer(&ts, GS_TRUE);
	return 0;
}

static GSContainerInfo info(void) {
	GSContainerInfo result = GS_CONTAINER_INFO_INITIALIZER;
	result.name = "Rows01";
	result.type = GS_CONTAINER_COLLECTION;
	result.columnCount = COLUMN_COUNT;
	result.columnInfoList = COLUMNS;
	result.rowKeyAssigned = GS_TRUE;
	return result;
}

static int fillRow1(GSGridStore *store, GSRow *row) {
	const GSPreciseTimestamp micro = { 1700000000123, 456000 };
	const GSPreciseTimestamp nano = { 1700000000123, 456789 };
	const GSBlob blob = { sizeof(BLOB_BYTES), BLOB_BYTES };
	CHECK(gsSetRowFieldByInteger(row, ID, 1));
	CHECK(gsSetRowFieldByString(row, S, "h\xc3\xa9llo"));
	CHECK(gsSetRowFieldByBool(row, B, GS_TRUE));
	CHECK(gsSetRowFieldByByte(row, BY, -128));
	CHECK(gsSetRowFieldByShort(row, SH, 32767));
	CHECK(gsSetRowFieldByInteger(row, I, -2147483647 - 1));
	CHECK(gsSetRowFieldByLong(row, L, INT64_MIN));
	CHECK(gsSetRowFieldByFloat(row, F, -0.0f));
	CHECK(gsSetRowFieldByDouble(row, D, NAN));
	CHECK(gsSetRowFieldByTimestamp(row, T, 1700000000123));
	CHECK(gsSetRowFieldByPreciseTimestamp(row, TU, &micro));
	CHECK(gsSetRowFieldByPreciseTimestamp(row, TN, &nano));
	CHECK(gsSetRowFieldByBlob(row, BL, &blob));
	CHECK(gsSetRowFieldByLongArray(row, LA, LONGS, 4));
	CHECK(gsSetRowFieldByStringArray(row, SA, STRINGS, 3));
	CHECK(gsSetRowFieldByString(row, NN, ""));
	return 0;
}

static int fillRow2(GSGridStore *store, GSRow *row) {
	CHECK(gsSetRowFieldByInteger(row, ID, 2));
	for (int32_t column = S; column < NN; column++) CHECK(gsSetRowFieldNull(row, column));
	CHECK(gsSetRowFieldByLongArray(row, LA, LONGS, 0));
	CHECK(gsSetRowFieldByString(row, NN, "x"));
	return 0;
}

static int checkRow1(GSGridStore *store, GSRow *row) {
	const GSChar *s; GSBool b; int8_t by; int16_t sh; int32_t i; int64_t l; float f; double d;
	GSTimestamp t; GSPreciseTimestamp tu, tn; GSBlob bl; const int64_t *la; size_t laSize;
	const GSChar *const *sa; size_t saSize;
	CHECK(gsGetRowFieldAsString(row, S, &s));
	EXPECT(strcmp(s, "h\xc3\xa9llo") == 0, "s = %s", s);
	CHECK(gsGetRowFieldAsBool(row, B, &b)); EXPECT(b == GS_TRUE, "b");
	CHECK(gsGetRowFieldAsByte(row, BY, &by)); EXPECT(by == -128, "by = %d", by);
	CHECK(gsGetRowFieldAsShort(row, SH, &sh)); EXPECT(sh == 32767, "sh = %d", sh);
	CHECK(gsGetRowFieldAsInteger(row, I, &i)); EXPECT(i == -2147483647 - 1, "i = %d", i);
	CHECK(gsGetRowFieldAsLong(row, L, &l)); EXPECT(l == INT64_MIN, "l = %lld", (long long) l);
	CHECK(gsGetRowFieldAsFloat(row, F, &f)); EXPECT(f == 0 && signbit(f), "f = %g", f);
	CHECK(gsGetRowFieldAsDouble(row, D, &d)); EXPECT(isnan(d), "d = %g", d);
	CHECK(gsGetRowFieldAsTimestamp(row, T, &t));
	EXPECT(t == 1700000000123, "t = %lld", (long long) t);
	CHECK(gsGetRowFieldAsPreciseTimestamp(row, TU, &tu));
	EXPECT(tu.base == 1700000000123 && tu.nanos == 456000, "tu = %lld+%u",
			(long long) tu.base, tu.nanos);
	CHECK(gsGetRowFieldAsPreciseTimestamp(row, TN, &tn));
	EXPECT(tn.base == 1700000000123 && tn.nanos == 456789, "tn = %lld+%u",
			(long long) tn.base, tn.nanos);
	CHECK(gsGetRowFieldAsBlob(row, BL, &bl));
	EXPECT(bl.size == sizeof(BLOB_BYTES) && memcmp(bl.data, BLOB_BYTES, bl.size) == 0, "bl");
	CHECK(gsGetRowFieldAsLongArray(row, LA, &la, &laSize));
	EXPECT(laSize == 4 && memcmp(la, LONGS, sizeof(LONGS)) == 0, "la (%d)", (int) laSize);
	CHECK(gsGetRowFieldAsStringArray(row, SA, &sa, &saSize));
	EXPECT(saSize == 3, "sa size %d", (int) saSize);
	for (size_t k = 0; k < 3; k++) EXPECT(strcmp(sa[k], STRINGS[k]) == 0, "sa[%d]", (int) k);
	CHECK(gsGetRowFieldAsString(row, NN, &s)); EXPECT(strcmp(s, "") == 0, "nn = %s", s);
	return 0;
}

static int checkRow2(GSGridStore *store, GSRow *row) {
	for (int32_t column = S; column < NN; column++) {
		GSBool isNull = GS_FALSE;
		CHECK(gsGetRowFieldNull(row, column, &isNull));
		EXPECT(isNull == (column != LA), "column %d null = %d", column, (int) isNull);
	}
	const int64_t *la; size_t laSize;
	CHECK(gsGetRowFieldAsLongArray(row, LA, &la, &laSize));
	EXPECT(laSize == 0, "la size %d", (int) laSize);
	const GSChar *s;
	CHECK(gsGetRowFieldAsString(row, NN, &s)); EXPECT(strcmp(s, "x") == 0, "nn = %s", s);
	return 0;
}

/*
 * edges: the collection "Rows02" (an INTEGER key, TIMESTAMP(6) and (9), an array of every
 * fixed-size element type, a BLOB and a STRING): row 1 with the epoch and the extremes of every
 * element type, a 200,000-byte BLOB and a 300-byte STRING (GridDB's 4-byte size prefix); row 2
 * with the last representable instant (9999-12-31T23:59:59.999999 / .999999999), empty arrays, an
 * empty BLOB and STRING; each put, got back and compared field by field.
 */
enum { E_ID, E_TU, E_TN, E_BA, E_BYA, E_SHA, E_IA, E_FA, E_DA, E_TA, E_BL, E_S, EDGE_COLUMN_COUNT };

static const GSColumnInfo EDGE_COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "tu", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT,
			GS_TYPE_OPTION_NOT_NULL | GS_TYPE_OPTION_TIME_MICRO },
	{ "tn", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT,
			GS_TYPE_OPTION_NOT_NULL | GS_TYPE_OPTION_TIME_NANO },
	{ "ba", GS_TYPE_BOOL_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "bya", GS_TYPE_BYTE_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "sha", GS_TYPE_SHORT_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "ia", GS_TYPE_INTEGER_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "fa", GS_TYPE_FLOAT_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "da", GS_TYPE_DOUBLE_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "ta", GS_TYPE_TIMESTAMP_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "bl", GS_TYPE_BLOB, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
};

/* 9999-12-31T23:59:59.999Z, GridDB's last TIMESTAMP, in ms. */
#define LAST_MS INT64_C(253402300799999)
#define EDGE_BLOB_BYTES 200000
#define EDGE_STRING_BYTES 300

static const GSBool EDGE_BOOLS[] = { GS_TRUE, GS_FALSE };
static const int8_t EDGE_BYTES[] = { -128, 0, 127 };
static const int16_t EDGE_SHORTS[] = { -32768, 32767 };
static const int32_t EDGE_INTS[] = { INT32_MIN, INT32_MAX };
static const GSTimestamp EDGE_TIMES[] = { 0, LAST_MS };
static uint8_t edgeBlob[EDGE_BLOB_BYTES];
static char edgeString[EDGE_STRING_BYTES + 1];

static int edgeFill(GSGridStore *store, GSRow *row, int32_t id, const float *floats,
		const double *doubles) {
	const int first = id == 1;
	const GSPreciseTimestamp micro = { first ? 0 : LAST_MS, first ? 0 : 999000 };
	const GSPreciseTimestamp nano = { first ? 0 : LAST_MS, first ? 0 : 999999 };
	const GSBlob blob = { first ? EDGE_BLOB_BYTES : 0, edgeBlob };
	const size_t n = first ? 1 : 0; /* arrays of row 2 are empty */
	CHECK(gsSetRowFieldByInteger(row, E_ID, id));
	CHECK(gsSetRowFieldByPreciseTimestamp(row, E_TU, &micro));
	CHECK(gsSetRowFieldByPreciseTimestamp(row, E_TN, &nano));
	CHECK(gsSetRowFieldByBoolArray(row, E_BA, EDGE_BOOLS, 2 * n));
	CHECK(gsSetRowFieldByByteArray(row, E_BYA, EDGE_BYTES, 3 * n));
	CHECK(gsSetRowFieldByShortArray(row, E_SHA, EDGE_SHORTS, 2 * n));
	CHECK(gsSetRowFieldByIntegerArray(row, E_IA, EDGE_INTS, 2 * n));
	CHECK(gsSetRowFieldByFloatArray(row, E_FA, floats, 4 * n));
	CHECK(gsSetRowFieldByDoubleArray(row, E_DA, doubles, 4 * n));
	CHECK(gsSetRowFieldByTimestampArray(row, E_TA, EDGE_TIMES, 2 * n));
	CHECK(gsSetRowFieldByBlob(row, E_BL, &blob));
	CHECK(gsSetRowFieldByString(row, E_S, first ? edgeString : ""));
	return 0;
}

/* Same bits (NaN, -0 and all) for n floats or doubles. */
static int sameBits(const void *a, const void *b, size_t bytes) {
	return memcmp(a, b, bytes) == 0;
}

static int edgeCheck(GSGridStore *store, GSRow *row, int32_t id, const float *floats,
		const double *doubles) {
	const int first = id == 1;
	const size_t n = first ? 1 : 0;
	GSPreciseTimestamp tu, tn;
	const GSBool *ba; const int8_t *bya; const int16_t *sha; const int32_t *ia; const float *fa;
	const double *da; const GSTimestamp *ta; GSBlob bl; const GSChar *s; size_t size;
	CHECK(gsGetRowFieldAsPreciseTimestamp(row, E_TU, &tu));
	EXPECT(tu.base == (first ? 0 : LAST_MS) && tu.nanos == (first ? 0u : 999000u),
			"row %d: tu = %lld+%u", id, (long long) tu.base, tu.nanos);
	CHECK(gsGetRowFieldAsPreciseTimestamp(row, E_TN, &tn));
	EXPECT(tn.base == (first ? 0 : LAST_MS) && tn.nanos == (first ? 0u : 999999u),
			"row %d: tn = %lld+%u", id, (long long) tn.base, tn.nanos);
	CHECK(gsGetRowFieldAsBoolArray(row, E_BA, &ba, &size));
	EXPECT(size == 2 * n && sameBits(ba, EDGE_BOOLS, size * sizeof(GSBool)), "row %d: ba", id);
	CHECK(gsGetRowFieldAsByteArray(row, E_BYA, &bya, &size));
	EXPECT(size == 3 * n && sameBits(bya, EDGE_BYTES, size), "row %d: bya", id);
	CHECK(gsGetRowFieldAsShortArray(row, E_SHA, &sha, &size));
	EXPECT(size == 2 * n && sameBits(sha, EDGE_SHORTS, size * 2), "row %d: sha", id);
	CHECK(gsGetRowFieldAsIntegerArray(row, E_IA, &ia, &size));
	EXPECT(size == 2 * n && sameBits(ia, EDGE_INTS, size * 4), "row %d: ia", id);
	CHECK(gsGetRowFieldAsFloatArray(row, E_FA, &fa, &size));
	EXPECT(size == 4 * n && sameBits(fa, floats, size * 4), "row %d: fa", id);
	CHECK(gsGetRowFieldAsDoubleArray(row, E_DA, &da, &size));
	EXPECT(size == 4 * n && sameBits(da, doubles, size * 8), "row %d: da", id);
	CHECK(gsGetRowFieldAsTimestampArray(row, E_TA, &ta, &size));
	EXPECT(size == 2 * n && sameBits(ta, EDGE_TIMES, size * 8), "row %d: ta", id);
	CHECK(gsGetRowFieldAsBlob(row, E_BL, &bl));
	EXPECT(bl.size == (first ? EDGE_BLOB_BYTES : 0u) &&
			(bl.size == 0 || memcmp(bl.data, edgeBlob, bl.size) == 0),
			"row %d: bl of %d bytes", id, (int) bl.size);
	CHECK(gsGetRowFieldAsString(row, E_S, &s));
	EXPECT(strcmp(s, first ? edgeString : "") == 0, "row %d: s of %d bytes", id, (int) strlen(s));
	return 0;
}

static int edges(GSGridStore *store) {
	/* floats and doubles: -0, an infinity, NaN, the smallest subnormal */
	const float floats[] = { -0.0f, INFINITY, NAN, 1e-45f };
	const double doubles[] = { -0.0, -INFINITY, NAN, 5e-324 };
	for (size_t k = 0; k < EDGE_BLOB_BYTES; k++) edgeBlob[k] = (uint8_t) (k * 7 + k / 256);
	for (size_t k = 0; k < EDGE_STRING_BYTES; k++) edgeString[k] = (char) ('a' + k % 26);
	edgeString[EDGE_STRING_BYTES] = '\0';
	GSContainerInfo edgeInfo = GS_CONTAINER_INFO_INITIALIZER;
	edgeInfo.name = "Rows02";
	edgeInfo.type = GS_CONTAINER_COLLECTION;
	edgeInfo.columnCount = EDGE_COLUMN_COUNT;
	edgeInfo.columnInfoList = EDGE_COLUMNS;
	edgeInfo.rowKeyAssigned = GS_TRUE;
	GSContainer *container = NULL;
	GSRow *row = NULL;
	GSBool exists;
	gsDropContainer(store, "Rows02");
	CHECK(gsPutContainerGeneral(store, NULL, &edgeInfo, GS_FALSE, &container));
	CHECK(gsCreateRowByContainer(container, &row));
	for (int32_t id = 1; id <= 2; id++) {
		if (edgeFill(store, row, id, floats, doubles) != 0) return 1;
		CHECK(gsPutRow(container, NULL, row, &exists));
	}
	for (int32_t id = 1; id <= 2; id++) {
		CHECK(gsGetRow(container, &id, row, &exists));
		EXPECT(exists, "Rows02 row %d not found", id);
		if (edgeCheck(store, row, id, floats, doubles) != 0) return 1;
	}
	gsCloseRow(&row);
	gsCloseContainer(&container, GS_TRUE);
	return 0;
}

/*
 * geometry-put: creates "Rows03" (id INTEGER key, g GEOMETRY) and tries to put a POINT: the C
 * client itself refuses to encode a GEOMETRY; prints "geometry-put <GSResult>".
 * geometry-get (after store's client put row 1 with a GEOMETRY): a get and a query of its rows
 * are refused by the node (it has no GridDB encoding of GEOMETRY to send), an aggregation of the
 * container is answered; prints "geometry-get <GSResult>", "geometry-query <GSResult>" and
 * "geometry-count <n>".
 */
static const GSColumnInfo GEOMETRY_COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "g", GS_TYPE_GEOMETRY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

static int geometry(GSGridStore *store, int put) {
	GSContainerInfo geometryInfo = GS_CONTAINER_INFO_INITIALIZER;
	geometryInfo.name = "Rows03";
	geometryInfo.type = GS_CONTAINER_COLLECTION;
	geometryInfo.columnCount = 2;
	geometryInfo.columnInfoList = GEOMETRY_COLUMNS;
	geometryInfo.rowKeyAssigned = GS_TRUE;
	GSContainer *container = NULL;
	GSRow *row = NULL;
	GSBool exists;
	CHECK(gsPutContainerGeneral(store, NULL, &geometryInfo, GS_FALSE, &container));
	CHECK(gsCreateRowByContainer(container, &row));
	if (put) {
		CHECK(gsSetRowFieldByInteger(row, 0, 2));
		CHECK(gsSetRowFieldByGeometry(row, 1, "POINT(1 2)"));
		const GSResult result = gsPutRow(container, NULL, row, &exists);
		EXPECT(!GS_SUCCEEDED(result), "the C client put a GEOMETRY");
		printf("geometry-put %d\n", (int) result);
	} else {
		int32_t key = 1;
		GSResult result = gsGetRow(container, &key, row, &exists);
		EXPECT(!GS_SUCCEEDED(result), "a row with a GEOMETRY was got");
		printf("geometry-get %d\n", (int) result);
		GSQuery *query = NULL;
		GSRowSet *rowSet = NULL;
		CHECK(gsQuery(container, "SELECT *", &query));
		result = gsFetch(query, GS_FALSE, &rowSet);
		EXPECT(!GS_SUCCEEDED(result), "rows with a GEOMETRY were fetched");
		printf("geometry-query %d\n", (int) result);
		gsCloseQuery(&query);
		GSAggregationResult *aggregation = NULL;
		int64_t count = -1;
		CHECK(gsQuery(container, "SELECT COUNT(*)", &query));
		CHECK(gsFetch(query, GS_FALSE, &rowSet));
		CHECK(gsGetNextAggregation(rowSet, &aggregation));
		EXPECT(gsGetAggregationValue(aggregation, &count, GS_TYPE_LONG), "COUNT(*): no value");
		printf("geometry-count %lld\n", (long long) count);
		gsCloseAggregationResult(&aggregation);
		gsCloseRowSet(&rowSet);
		gsCloseQuery(&query);
	}
	gsCloseRow(&row);
	gsCloseContainer(&container, GS_TRUE);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: rows port clusterName put|check|edges|geometry-put|geometry-get|delete\n");
		return 2;
	}
	GSGridStore *store = NULL;
	CHECK(connectAdmin(argv[1], argv[2], &store));
	const GSContainerInfo containerInfo = info();
	GSContainer *container = NULL;
	CHECK(gsPutContainerGeneral(store, NULL, &containerInfo, GS_FALSE, &container));
	GSRow *row = NULL;
	CHECK(gsCreateRowByContainer(container, &row));
	GSBool exists = GS_FALSE;

	if (strcmp(argv[3], "put") == 0) {
		if (fillRow1(store, row) != 0) return 1;
		CHECK(gsPutRow(container, NULL, row, &exists));
		EXPECT(!exists, "row 1 existed before its first put");
		if (fillRow2(store, row) != 0) return 1;
		CHECK(gsPutRow(container, NULL, row, &exists));
		EXPECT(!exists, "row 2 existed before its first put");
		CHECK(gsPutRow(container, NULL, row, &exists));
		EXPECT(exists, "row 2 did not exist at its second put");
		/* Rows 10..14 in one PUT_MULTIPLE_ROWS. */
		GSRow *many[5];
		for (int k = 0; k < 5; k++) {
			CHECK(gsCreateRowByContainer(container, &many[k]));
			if (fillRow2(store, many[k]) != 0) return 1;
			CHECK(gsSetRowFieldByInteger(many[k], ID, 10 + k));
			CHECK(gsSetRowFieldByLong(many[k], L, (int64_t) k * 1000));
		}
		CHECK(gsPutMultipleRows(container, (const void *const *) many, 5, &exists));
		for (int k = 0; k < 5; k++) gsCloseRow(&many[k]);
		if (timeSeries(store) != 0) return 1;
	} else if (strcmp(argv[3], "check") == 0) {
		int32_t key = 1;
		CHECK(gsGetRow(container, &key, row, &exists));
		EXPECT(exists, "row 1 not found");
		if (checkRow1(store, row) != 0) return 1;
		key = 2;
		CHECK(gsGetRow(container, &key, row, &exists));
		EXPECT(exists, "row 2 not found");
		if (checkRow2(store, row) != 0) return 1;
		key = 3;
		CHECK(gsGetRow(container, &key, row, &exists));
		EXPECT(!exists, "row 3 found");
		key = 13;
		CHECK(gsGetRow(container, &key, row, &exists));
		EXPECT(exists, "row 13 not found");
		int64_t l;
		CHECK(gsGetRowFieldAsLong(row, L, &l));
		EXPECT(l == 3000, "row 13: l = %lld", (long long) l);
	} else if (strcmp(argv[3], "geometry-put") == 0 || strcmp(argv[3], "geometry-get") == 0) {
		if (geometry(store, strcmp(argv[3], "geometry-put") == 0) != 0) return 1;
	} else if (strcmp(argv[3], "edges") == 0) {
		if (edges(store) != 0) return 1;
	} else if (strcmp(argv[3], "delete") == 0) {
		int32_t key = 1;
		CHECK(gsDeleteRow(container, &key, &exists));
		EXPECT(exists, "row 1 did not exist at its delete");
		CHECK(gsDeleteRow(container, &key, &exists));
		EXPECT(!exists, "row 1 existed after its delete");
		/* The client itself refuses a NULL in a NOT NULL column (before any statement). */
		CHECK(gsSetRowFieldByInteger(row, ID, 9));
		GSResult result = gsSetRowFieldNull(row, NN);
		EXPECT(!GS_SUCCEEDED(result), "the client accepted a NULL in a NOT NULL column");
		CHECK(gsDropContainer(store, "Rows01"));
		CHECK(gsSetRowFieldByString(row, NN, "y"));
		result = gsPutRow(container, NULL, row, &exists);
		EXPECT(!GS_SUCCEEDED(result), "a put into a dropped container was accepted");
		printf("put-after-drop %d\n", (int) result);
	} else {
		fprintf(stderr, "unknown mode %s\n", argv[3]);
		return 2;
	}
	gsCloseRow(&row);
	gsCloseContainer(&container, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
