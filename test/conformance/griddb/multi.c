/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/multi.test.ts):
 * gsPutMultipleContainerRows (CREATE_MULTIPLE_SESSIONS by name, PUT_MULTIPLE_CONTAINER_ROWS,
 * CLOSE_MULTIPLE_SESSIONS) into the collections "M01" and "M02" and the time series "M03"
 * (containers of different partitions: one statement per partition), checked with gsGetRow;
 * gsGetMultipleContainerRows (GET_MULTIPLE_CONTAINER_ROWS) with a DISTINCT and a RANGE key
 * predicate; the partition controller's container count and names of M01's partition
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
