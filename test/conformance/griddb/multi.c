/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/multi.test.ts):
 * gsPutMultipleContainerRows (CREATE_MULTIPLE_SESSIONS by name, PUT_MULTIPLE_CONTAINER_ROWS,
 * CLOSE_MULTIPLE_SESSIONS) into the collections "M01" and "M02" and the time series "M03"
 * (containers of different partitions: one statement per partition), checked with gsGetRow;
 * gsGetMultipleContainerRows (GET_MULTIPLE_CONTAINER_ROWS) with a DISTINCT and a RANGE key
 * predicate, and with a DISTINCT and a RANGE composite key predicate (gsCreateRowKeyPredicate-
 * General) on the collections "MC1" and "MC2" (key a INTEGER, b STRING); the partition controller's container count and names of M01's partition
 * (GET_PARTITION_CONTAINER_NAMES); then a multi-put naming the absent container "M_absent"
 * prints "absent <GSResult>".
 *
 *   multi <port> <clusterName>
 *
 * Exits 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#include "conformance.h"

static GSGridStore *store = NULL;

static const GSColumnInfo COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};
static const GSColumnInfo TS_COLUMNS[] = {
	{ "ts", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "v", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};
static const char *const NAMES[] = { "M01", "M02", "M03" };
static const GSColumnInfo COMPOSITE_COLUMNS[] = {
	{ "a", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "b", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "v", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};
static const int32_t COMPOSITE_KEY[] = { 0, 1 };

/* A composite key (a, b) of `info`'s container. */
static GSRowKey *compositeKey(const GSContainerInfo *info, int32_t a, const char *b) {
	GSRowKey *key = NULL;
	if (!GS_SUCCEEDED(gsCreateRowKeyByStore(store, info, &key)) ||
			!GS_SUCCEEDED(gsSetRowFieldByInteger(key, 0, a)) ||
			!GS_SUCCEEDED(gsSetRowFieldByString(key, 1, b))) {
		printError(store);
		return NULL;
	}
	return key;
}

/* gsGetMultipleContainerRows with composite key predicates on "MC1" and "MC2" (rows (a, b) for
 * a 1..3 and b "x", "y\xc3\xa9", v = 10a + (b == x ? 0 : 1)): DISTINCT (1, x) (3, yé) (2, absent)
 * on MC1, RANGE from (2, x) to (3, x) on MC2. */
static int compositeMultiGet(void) {
	static const char *const bs[] = { "x", "y\xc3\xa9" };
	static const char *const names[] = { "MC1", "MC2" };
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 3;
	info.columnInfoList = COMPOSITE_COLUMNS;
	info.rowKeyColumnCount = 2;
	info.rowKeyColumnList = COMPOSITE_KEY;
	for (int c = 0; c < 2; c++) {
		GSContainer *container = NULL;
		GSRow *row = NULL;
		info.name = names[c];
		gsDropContainer(store, names[c]);
		CHECK(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &container));
		CHECK(gsCreateRowByContainer(container, &row));
		for (int32_t a = 1; a <= 3; a++) {
			for (int b = 0; b < 2; b++) {
				CHECK(gsSetRowFieldByInteger(row, 0, a));
				CHECK(gsSetRowFieldByString(row, 1, bs[b]));
				CHECK(gsSetRowFieldByLong(row, 2, 10 * a + b));
				CHECK(gsPutRow(container, NULL, row, NULL));
			}
		}
		gsCloseRow(&row);
		gsCloseContainer(&container, GS_TRUE);
	}
	GSRowKeyPredicate *distinct = NULL;
	GSRowKeyPredicate *range = NULL;
	GSRowKey *keys[5] = {
		compositeKey(&info, 1, "x"), compositeKey(&info, 3, bs[1]), compositeKey(&info, 2, "absent"),
		compositeKey(&info, 2, "x"), compositeKey(&info, 3, "x"),
	};
	for (int k = 0; k < 5; k++) EXPECT(keys[k] != NULL, "composite key %d", k);
	CHECK(gsCreateRowKeyPredicateGeneral(store, &info, &distinct));
	for (int k = 0; k < 3; k++) CHECK(gsAddPredicateGeneralKey(distinct, keys[k]));
	CHECK(gsCreateRowKeyPredicateGeneral(store, &info, &range));
	CHECK(gsSetPredicateStartGeneralKey(range, keys[3]));
	CHECK(gsSetPredicateFinishGeneralKey(range, keys[4]));
	const GSRowKeyPredicateEntry predicates[] = { { "MC1", distinct }, { "MC2", range } };
	const GSRowKeyPredicateEntry *predicateList = predicates;
	const GSContainerRowEntry *got = NULL;
	size_t gotCount = 0;
	CHECK(gsGetMultipleContainerRows(store, &predicateList, 2, &got, &gotCount));
	EXPECT(gotCount == 2, "composite multi-get: %d containers", (int) gotCount);
	for (size_t e = 0; e < gotCount; e++) {
		const int mc1 = strcmp(got[e].containerName, "MC1") == 0;
		/* MC1: (1, x) (3, yé); MC2: (2, x) (2, yé) (3, x) */
		static const int64_t mc1Values[] = { 10, 31 };
		static const int64_t mc2Values[] = { 20, 21, 30 };
		const size_t expectedCount = mc1 ? 2 : 3;
		EXPECT(got[e].rowCount == expectedCount, "composite multi-get: %s has %d rows",
				got[e].containerName, (int) got[e].rowCount);
		int64_t values[3];
		for (size_t r = 0; r < got[e].rowCount; r++) {
			CHECK(gsGetRowFieldAsLong((GSRow *) got[e].rowList[r], 2, &values[r]));
		}
		/* the rows come in key order; check them as a set anyway */
		for (size_t i = 0; i < expectedCount; i++) {
			const int64_t want = mc1 ? mc1Values[i] : mc2Values[i];
			int seen = 0;
			for (size_t r = 0; r < expectedCount; r++) seen |= values[r] == want;
			EXPECT(seen, "composite multi-get: %s lacks v %lld", got[e].containerName,
					(long long) want);
		}
	}
	for (int k = 0; k < 5; k++) gsCloseRow(&keys[k]);
	gsCloseRowKeyPredicate(&distinct);
	gsCloseRowKeyPredicate(&range);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: multi port clusterName\n");
		return 2;
	}
	CHECK(connectAdmin(argv[1], argv[2], &store));

	GSContainer *containers[3];
	for (int c = 0; c < 3; c++) {
		GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
		info.name = NAMES[c];
		info.type = c == 2 ? GS_CONTAINER_TIME_SERIES : GS_CONTAINER_COLLECTION;
		info.columnCount = 2;
		info.columnInfoList = c == 2 ? TS_COLUMNS : COLUMNS;
		info.rowKeyAssigned = GS_TRUE;
		CHECK(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &containers[c]));
	}

	/* three rows for each collection, two for the time series */
	GSRow *rows[3][3];
	GSContainerRowEntry entries[3];
	for (int c = 0; c < 3; c++) {
		size_t count = c == 2 ? 2 : 3;
		for (size_t r = 0; r < count; r++) {
			CHECK(gsCreateRowByContainer(containers[c], &rows[c][r]));
			if (c == 2) {
				CHECK(gsSetRowFieldByTimestamp(rows[c][r], 0, (GSTimestamp) (r + 1) * 1000));
				CHECK(gsSetRowFieldByLong(rows[c][r], 1, (int64_t) r * 7));
			} else {
				char s[16];
				snprintf(s, sizeof(s), "%s-%d", NAMES[c], (int) r);
				CHECK(gsSetRowFieldByInteger(rows[c][r], 0, (int32_t) r));
				CHECK(gsSetRowFieldByString(rows[c][r], 1, s));
			}
		}
		entries[c].containerName = NAMES[c];
		entries[c].rowList = (void *const *) rows[c];
		entries[c].rowCount = count;
	}
	CHECK(gsPutMultipleContainerRows(store, entries, 3));

	GSRow *row = NULL;
	for (int c = 0; c < 2; c++) {
		CHECK(gsCreateRowByContainer(containers[c], &row));
		for (int32_t id = 0; id < 3; id++) {
			GSBool found;
			const GSChar *s;
			char expected[16];
			snprintf(expected, sizeof(expected), "%s-%d", NAMES[c], (int) id);
			CHECK(gsGetRow(containers[c], &id, row, &found));
			EXPECT(found, "%s: row %d not found", NAMES[c], id);
			CHECK(gsGetRowFieldAsString(row, 1, &s));
			EXPECT(strcmp(s, expected) == 0, "%s: row %d is \"%s\"", NAMES[c], id, s);
		}
		gsCloseRow(&row);
	}
	CHECK(gsCreateRowByContainer(containers[2], &row));
	GSTimestamp ts = 2000;
	GSBool found;
	int64_t v;
	CHECK(gsGetRow(containers[2], &ts, row, &found));
	EXPECT(found, "M03: row at 2000 not found");
	CHECK(gsGetRowFieldAsLong(row, 1, &v));
	EXPECT(v == 7, "M03: v %lld", (long long) v);
	gsCloseRow(&row);

	/* gsGetMultipleContainerRows: keys 0 and 2 of M01, ids from 1 of M02 */
	{
		GSRowKeyPredicate *distinct = NULL;
		GSRowKeyPredicate *range = NULL;
		int32_t zero = 0, two = 2, one = 1;
		CHECK(gsCreateRowKeyPredicate(store, GS_TYPE_INTEGER, &distinct));
		CHECK(gsAddPredicateKeyByInteger(distinct, zero));
		CHECK(gsAddPredicateKeyByInteger(distinct, two));
		CHECK(gsCreateRowKeyPredicate(store, GS_TYPE_INTEGER, &range));
		CHECK(gsSetPredicateStartKeyByInteger(range, &one));
		const GSRowKeyPredicateEntry predicates[] = { { "M01", distinct }, { "M02", range } };
		const GSRowKeyPredicateEntry *predicateList = predicates;
		const GSContainerRowEntry *got = NULL;
		size_t gotCount = 0;
		CHECK(gsGetMultipleContainerRows(store, &predicateList, 2, &got, &gotCount));
		EXPECT(gotCount == 2, "multi-get: %d containers", (int) gotCount);
		for (size_t e = 0; e < gotCount; e++) {
			const int m01 = strcmp(got[e].containerName, "M01") == 0;
			EXPECT(m01 || strcmp(got[e].containerName, "M02") == 0, "multi-get: \"%s\"",
					got[e].containerName);
			EXPECT(got[e].rowCount == 2, "multi-get: %s has %d rows", got[e].containerName,
					(int) got[e].rowCount);
			for (size_t r = 0; r < got[e].rowCount; r++) {
				int32_t id;
				CHECK(gsGetRowFieldAsInteger((GSRow *) got[e].rowList[r], 0, &id));
				const int32_t expected = m01 ? (int32_t) r * 2 : (int32_t) r + 1;
				EXPECT(id == expected, "multi-get: %s row %d has id %d", got[e].containerName,
						(int) r, id);
			}
		}
		gsCloseRowKeyPredicate(&distinct);
		gsCloseRowKeyPredicate(&range);
	}

	if (compositeMultiGet() != 0) return 1;

	/* the partition controller: M01's partition lists M01 (GET_PARTITION_CONTAINER_NAMES) */
	{
		GSPartitionController *controller = NULL;
		int32_t partition;
		int64_t containerCount;
		const GSChar *const *names = NULL;
		size_t nameCount = 0;
		CHECK(gsGetPartitionController(store, &controller));
		CHECK(gsGetPartitionIndexOfContainer(controller, "M01", &partition));
		CHECK(gsGetPartitionContainerCount(controller, partition, &containerCount));
		CHECK(gsGetPartitionContainerNames(controller, partition, 0, NULL, &names, &nameCount));
		EXPECT(containerCount >= 1 && (size_t) containerCount == nameCount,
				"partition %d: count %lld, %d names", partition, (long long) containerCount,
				(int) nameCount);
		int listed = 0;
		for (size_t i = 0; i < nameCount; i++) listed |= strcmp(names[i], "M01") == 0;
		EXPECT(listed, "partition %d does not list M01", partition);
		const int64_t none = 0;
		CHECK(gsGetPartitionContainerNames(controller, partition, 1, &none, &names, &nameCount));
		EXPECT(nameCount == 0, "a limit of 0 gave %d names", (int) nameCount);
		gsClosePartitionController(&controller);
	}

	/* a container that does not exist: the application's error */
	GSContainerRowEntry absent = entries[0];
	absent.containerName = "M_absent";
	GSResult result = gsPutMultipleContainerRows(store, &absent, 1);
	EXPECT(!GS_SUCCEEDED(result), "a multi-put into an absent container succeeded");
	printf("absent %d\n", (int) gsGetErrorCode(store, 0));

	for (int c = 0; c < 3; c++) {
		for (size_t r = 0; r < (c == 2 ? 2u : 3u); r++) gsCloseRow(&rows[c][r]);
		gsCloseContainer(&containers[c], GS_TRUE);
	}
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
