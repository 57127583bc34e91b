/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/containers.test.ts):
 * the container statements as an application reaches them through GridDB's C client:
 * gsPutContainerGeneral (PUT_CONTAINER), gsGetContainerInfo (GET_CONTAINER_PROPERTIES) and
 * gsDropContainer (DROP_CONTAINER).
 *
 *   containers <port> <clusterName> create|drop
 *
 * create: "absent01" does not exist; makes the collection "Col_All" (an INTEGER row key and a
 * column of every type, arrays, TIMESTAMP(3/6/9), a NOT NULL column) and the time series
 * "TS_All"; reads both back with gsGetContainerInfo and compares every column; puts both again
 * (the same schema: accepted); puts "Col_All" with another schema (refused: prints
 * "change-schema <GSResult>"), drops "TS_All" as a collection (refused: prints
 * "drop-type <GSResult>").
 * drop: drops both; gsGetContainerInfo then says they do not exist.
 * Exits 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#include "conformance.h"

static const GSColumnInfo COLLECTION_COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "b", GS_TYPE_BOOL, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "by", GS_TYPE_BYTE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "sh", GS_TYPE_SHORT, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "i", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "l", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "f", GS_TYPE_FLOAT, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "d", GS_TYPE_DOUBLE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "t", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "tu", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT,
			GS_TYPE_OPTION_NULLABLE | GS_TYPE_OPTION_TIME_MICRO },
	{ "Tn", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT,
			GS_TYPE_OPTION_NULLABLE | GS_TYPE_OPTION_TIME_NANO },
	{ "g", GS_TYPE_GEOMETRY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "bl", GS_TYPE_BLOB, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "sa", GS_TYPE_STRING_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "ba", GS_TYPE_BOOL_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "bya", GS_TYPE_BYTE_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "sha", GS_TYPE_SHORT_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "ia", GS_TYPE_INTEGER_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "la", GS_TYPE_LONG_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "fa", GS_TYPE_FLOAT_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "da", GS_TYPE_DOUBLE_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "ta", GS_TYPE_TIMESTAMP_ARRAY, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

static const GSColumnInfo TIME_SERIES_COLUMNS[] = {
	{ "ts", GS_TYPE_TIMESTAMP, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "value", GS_TYPE_DOUBLE, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "status", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
};

#define COUNT(list) (sizeof(list) / sizeof((list)[0]))
#define PRECISION_OPTIONS (GS_TYPE_OPTION_TIME_MILLI | GS_TYPE_OPTION_TIME_MICRO | \
	GS_TYPE_OPTION_TIME_NANO)

static GSContainerInfo infoOf(const char *name, GSContainerType type,
		const GSColumnInfo *columns, size_t count) {
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = name;
	info.type = type;
	info.columnCount = count;
	info.columnInfoList = columns;
	info.rowKeyAssigned = GS_TRUE;
	return info;
}

/* Reads `name` back and compares it with what was put. */
static int checkInfo(GSGridStore *store, const char *name, GSContainerType type,
		const GSColumnInfo *columns, size_t count) {
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	GSBool exists = GS_FALSE;
	CHECK(gsGetContainerInfo(store, name, &info, &exists));
	EXPECT(exists, "%s: gsGetContainerInfo says it does not exist", name);
	EXPECT(strcmp(info.name, name) == 0, "%s: name %s", name, info.name);
	EXPECT(info.type == type, "%s: type %d", name, (int) info.type);
	EXPECT(info.rowKeyAssigned, "%s: no row key", name);
	EXPECT(info.rowKeyColumnCount == 1 && info.rowKeyColumnList[0] == 0,
			"%s: row key columns %d", name, (int) info.rowKeyColumnCount);
	EXPECT(info.columnCount == count, "%s: %d columns, not %d", name,
			(int) info.columnCount, (int) count);
	EXPECT(info.dataAffinity == NULL, "%s: data affinity %s", name, info.dataAffinity);
	EXPECT(info.indexInfoCount == 0, "%s: %d indexes", name, (int) info.indexInfoCount);
	for (size_t i = 0; i < count; i++) {
		const GSColumnInfo *got = &info.columnInfoList[i];
		const GSColumnInfo *want = &columns[i];
		EXPECT(strcmp(got->name, want->name) == 0, "%s: column %d is %s, not %s", name,
				(int) i, got->name, want->name);
		EXPECT(got->type == want->type, "%s.%s: type %d, not %d", name, want->name,
				(int) got->type, (int) want->type);
		const GSTypeOption nullable = GS_TYPE_OPTION_NULLABLE | GS_TYPE_OPTION_NOT_NULL;
		EXPECT((got->options & nullable) == (want->options & nullable),
				"%s.%s: options 0x%x, not 0x%x", name, want->name,
				(unsigned) got->options, (unsigned) want->options);
		const GSTypeOption precision = want->options & PRECISION_OPTIONS;
		if (precision != 0) {
			EXPECT((got->options & PRECISION_OPTIONS) == precision,
					"%s.%s: precision options 0x%x", name, want->name, (unsigned) got->options);
		}
	}
	return 0;
}

static int absent(GSGridStore *store, const char *name) {
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	GSBool exists = GS_TRUE;
	CHECK(gsGetContainerInfo(store, name, &info, &exists));
	EXPECT(!exists, "%s: gsGetContainerInfo says it exists", name);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 4) {
		fprintf(stderr, "usage: containers port clusterName create|drop\n");
		return 2;
	}
	GSGridStore *store = NULL;
	CHECK(connectAdmin(argv[1], argv[2], &store));
	GSContainer *container = NULL;
	const GSContainerInfo collection = infoOf("Col_All", GS_CONTAINER_COLLECTION,
			COLLECTION_COLUMNS, COUNT(COLLECTION_COLUMNS));
	const GSContainerInfo timeSeries = infoOf("TS_All", GS_CONTAINER_TIME_SERIES,
			TIME_SERIES_COLUMNS, COUNT(TIME_SERIES_COLUMNS));

	if (strcmp(argv[3], "create") == 0) {
		if (absent(store, "absent01") != 0) return 1;
		for (int round = 0; round < 2; round++) {
			CHECK(gsPutContainerGeneral(store, NULL, &collection, GS_FALSE, &container));
			gsCloseContainer(&container, GS_TRUE);
			CHECK(gsPutContainerGeneral(store, NULL, &timeSeries, GS_FALSE, &container));
			gsCloseContainer(&container, GS_TRUE);
		}
		if (checkInfo(store, "Col_All", GS_CONTAINER_COLLECTION, COLLECTION_COLUMNS,
				COUNT(COLLECTION_COLUMNS)) != 0) return 1;
		if (checkInfo(store, "TS_All", GS_CONTAINER_TIME_SERIES, TIME_SERIES_COLUMNS,
				COUNT(TIME_SERIES_COLUMNS)) != 0) return 1;
		/* The same name with other columns, not modifiable: GridDB refuses it. */
		const GSContainerInfo other = infoOf("col_all", GS_CONTAINER_COLLECTION,
				COLLECTION_COLUMNS, 3);
		GSResult result = gsPutContainerGeneral(store, NULL, &other, GS_FALSE, &container);
		EXPECT(!GS_SUCCEEDED(result), "a changed schema was accepted");
		printf("change-schema %d\n", (int) result);
		result = gsDropCollection(store, "TS_All");
		EXPECT(!GS_SUCCEEDED(result), "a time series was dropped as a collection");
		printf("drop-type %d\n", (int) result);
		if (checkInfo(store, "TS_All", GS_CONTAINER_TIME_SERIES, TIME_SERIES_COLUMNS,
				COUNT(TIME_SERIES_COLUMNS)) != 0) return 1;
	} else if (strcmp(argv[3], "drop") == 0) {
		CHECK(gsDropContainer(store, "col_ALL"));
		CHECK(gsDropTimeSeries(store, "TS_All"));
		/* Dropping what is not there is no error, as in GridDB. */
		CHECK(gsDropContainer(store, "Col_All"));
		if (absent(store, "Col_All") != 0 || absent(store, "TS_All") != 0) return 1;
	} else {
		fprintf(stderr, "unknown mode %s\n", argv[3]);
		return 2;
	}
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
