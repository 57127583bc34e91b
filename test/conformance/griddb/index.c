/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/index.test.ts):
 * gsCreateIndex / gsCreateIndexDetail (CREATE_INDEX_DETAIL) and gsDropIndex / gsDropIndexDetail
 * (DROP_INDEX_DETAIL) on the collection "IX01" (id INTEGER key, s STRING, v LONG): a TREE index
 * on s, created twice (no error, as in GridDB) and dropped; a named index "ixv" on v of the
 * default type, kept; a named composite index "ixsv" on (s, v), dropped by name; a HASH index,
 * which store does not have, prints "hash <GSResult>".
 *
 *   index <port> <clusterName>
 *
 * Exits 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include "gridstore.h"
#include "conformance.h"

static GSGridStore *store = NULL;

static const GSColumnInfo COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "v", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: index port clusterName\n");
		return 2;
	}
	CHECK(connectAdmin(argv[1], argv[2], &store));
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = "IX01";
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 3;
	info.columnInfoList = COLUMNS;
	info.rowKeyAssigned = GS_TRUE;
	GSContainer *c = NULL;
	CHECK(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &c));

	CHECK(gsCreateIndex(c, "s", GS_INDEX_FLAG_TREE));
	CHECK(gsCreateIndex(c, "s", GS_INDEX_FLAG_TREE));

	GSIndexInfo named = GS_INDEX_INFO_INITIALIZER;
	named.name = "ixv";
	named.columnName = "v";
	CHECK(gsCreateIndexDetail(c, &named));

	const GSChar *const pair[] = { "s", "v" };
	GSIndexInfo composite = GS_INDEX_INFO_INITIALIZER;
	composite.name = "ixsv";
	composite.type = GS_INDEX_FLAG_TREE;
	composite.columnNameList = pair;
	composite.columnNameCount = 2;
	CHECK(gsCreateIndexDetail(c, &composite));

	CHECK(gsDropIndex(c, "s", GS_INDEX_FLAG_TREE));
	GSIndexInfo byName = GS_INDEX_INFO_INITIALIZER;
	byName.name = "ixsv";
	CHECK(gsDropIndexDetail(c, &byName));

	GSResult result = gsCreateIndex(c, "v", GS_INDEX_FLAG_HASH);
	EXPECT(!GS_SUCCEEDED(result), "a HASH index was created");
	printf("hash %d\n", (int) gsGetErrorCode(c, 0));

	gsCloseContainer(&c, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
