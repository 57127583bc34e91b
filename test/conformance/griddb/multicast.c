/*
 * Multicast discovery (multicast.test.ts): GridDB's C client given only notificationAddress and
 * notificationPort, as GridDB's samples take them, finds the node by its announcement
 * (lib/server/griddb/griddb-announcer.ts), connects, and puts and gets a row.
 *
 *   multicast <notification address> <notification port> <cluster>
 *
 * Prints "found" and exits 0; a failure prints the client's error stack and exits 1.
 */
#include <string.h>
#include "conformance.h"

int main(int argc, char **argv) {
	if (argc != 4) { fprintf(stderr, "usage: multicast <address> <port> <cluster>\n"); return 2; }
	const GSPropertyEntry properties[] = {
		{ "notificationAddress", argv[1] }, { "notificationPort", argv[2] },
		{ "clusterName", argv[3] }, { "user", "admin" }, { "password", "admin" },
		{ "failoverTimeout", "20" },
	};
	GSGridStore *store = NULL;
	CHECK(gsGetGridStore(gsGetDefaultFactory(), properties,
		sizeof(properties) / sizeof(properties[0]), &store));

	GSColumnInfo columns[2] = { GS_COLUMN_INFO_INITIALIZER, GS_COLUMN_INFO_INITIALIZER };
	columns[0].name = "id";
	columns[0].type = GS_TYPE_INTEGER;
	columns[1].name = "text";
	columns[1].type = GS_TYPE_STRING;
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 2;
	info.columnInfoList = columns;
	info.rowKeyAssigned = GS_TRUE;
	GSContainer *container = NULL;
	CHECK(gsPutContainerGeneral(store, "Multicast01", &info, GS_FALSE, &container));
	GSRow *row = NULL;
	CHECK(gsCreateRowByContainer(container, &row));
	CHECK(gsSetRowFieldByInteger(row, 0, 7));
	CHECK(gsSetRowFieldByString(row, 1, "found by multicast"));
	CHECK(gsPutRow(container, NULL, row, NULL));
	int32_t key = 7;
	GSBool exists = GS_FALSE;
	CHECK(gsGetRow(container, &key, row, &exists));
	const GSChar *text = NULL;
	CHECK(gsGetRowFieldAsString(row, 1, &text));
	EXPECT(exists && strcmp(text, "found by multicast") == 0, "row 7 reads back as \"%s\"", text);
	printf("found\n");
	gsCloseRow(&row);
	gsCloseContainer(&container, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
