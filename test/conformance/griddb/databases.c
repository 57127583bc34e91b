/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/databases.test.ts):
 * GridDB's C client logged in to a database (the "database" property, sent with LOGIN) works in
 * that database's own containers.
 *
 *   databases <port> <clusterName> <user> <password> <database> <value>
 *
 * With a value: creates the collection "Shared" (an INTEGER key, a LONG value) unless it exists
 * and puts row (1, value); with "-" only reads it (gsGetContainerGeneral: "no container" when
 * the database has none by that name). Then prints "value <v>" for row 1, or "missing"; prints
 * "error <GSResult>" when the login or a statement fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"

static const GSColumnInfo COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "v", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

#define STEP(call) do { GSResult r_ = (call); if (!GS_SUCCEEDED(r_)) { \
	printf("error %d\n", (int) r_); return 0; } } while (0)

int main(int argc, char **argv) {
	if (argc != 7) {
		fprintf(stderr, "usage: databases <port> <cluster> <user> <password> <database> <value|->\n");
		return 2;
	}
	char member[64];
	snprintf(member, sizeof(member), "127.0.0.1:%s", argv[1]);
	const GSPropertyEntry properties[] = {
		{ "notificationMember", member }, { "clusterName", argv[2] }, { "user", argv[3] },
		{ "password", argv[4] }, { "database", argv[5] }, { "failoverTimeout", "10" },
	};
	GSGridStore *store = NULL;
	STEP(gsGetGridStore(gsGetDefaultFactory(), properties,
			sizeof(properties) / sizeof(properties[0]), &store));
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = "Shared";
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 2;
	info.columnInfoList = COLUMNS;
	info.rowKeyAssigned = GS_TRUE;
	GSContainer *container = NULL;
	const GSBool writing = strcmp(argv[6], "-") != 0;
	if (writing) {
		STEP(gsPutContainerGeneral(store, "Shared", &info, GS_FALSE, &container));
	} else {
		STEP(gsGetContainerGeneral(store, "Shared", &container));
		if (container == NULL) {
			printf("no container\n");
			return 0;
		}
	}
	GSRow *row = NULL;
	STEP(gsCreateRowByContainer(container, &row));
	int32_t key = 1;
	if (writing) {
		STEP(gsSetRowFieldByInteger(row, 0, key));
		STEP(gsSetRowFieldByLong(row, 1, atoll(argv[6])));
		GSBool exists = GS_FALSE;
		STEP(gsPutRow(container, NULL, row, &exists));
	}
	GSBool found = GS_FALSE;
	STEP(gsGetRow(container, &key, row, &found));
	if (!found) {
		printf("missing\n");
	} else {
		int64_t value = 0;
		STEP(gsGetRowFieldAsLong(row, 1, &value));
		printf("value %lld\n", (long long) value);
	}
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
