/*
 * A writer of griddb-client-crash.test.ts: GridDB's own C client putting rows into a store node
 * that is SIGKILLed and started again under it, and printing each row the node acknowledged.
 *
 *   griddb-crash-writer <port> <cluster> <container> <first seq> <seconds>
 *
 * Creates (or opens) COLLECTION <container> (seq INTEGER row key, writer INTEGER), then puts rows
 * seq, seq + 1, ...: one gsPutRow at a time, and every third time a gsPutMultipleRows of
 * MULTI_ROWS rows, all in auto-commit. After each put returns success it prints "ack <seq>" for
 * every row of it and flushes, so a line on stdout is a row the node acknowledged. The client's
 * failover is what survives the node's death: failoverTimeout is FAILOVER_TIMEOUT_S, within which
 * it reconnects and retries the statement (its statement id makes the retry apply once). Stops
 * by itself after <seconds> (a bound in case the test is gone) with "end"; a put that fails prints
 * the client's error stack on stderr and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "../conformance/griddb/conformance.h"

enum { MULTI_ROWS = 20 };
static const char *const FAILOVER_TIMEOUT_S = "60";

static double nowS(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) now.tv_sec + (double) now.tv_nsec / 1e9;
}

int main(int argc, char **argv) {
	if (argc != 6) { fprintf(stderr, "usage: see the top of griddb-crash-writer.c\n"); return 2; }
	char member[64];
	snprintf(member, sizeof(member), "127.0.0.1:%s", argv[1]);
	const GSPropertyEntry properties[] = {
		{ "notificationMember", member }, { "clusterName", argv[2] },
		{ "user", "admin" }, { "password", "admin" },
		{ "failoverTimeout", FAILOVER_TIMEOUT_S }, { "transactionTimeout", "30" },
	};
	GSGridStore *store = NULL;
	CHECK_OF(gsGetGridStore(gsGetDefaultFactory(), properties,
		sizeof(properties) / sizeof(properties[0]), &store), store);

	GSColumnInfo columns[2] = { GS_COLUMN_INFO_INITIALIZER, GS_COLUMN_INFO_INITIALIZER };
	columns[0].name = "seq";
	columns[0].type = GS_TYPE_INTEGER;
	columns[1].name = "writer";
	columns[1].type = GS_TYPE_INTEGER;
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 2;
	info.columnInfoList = columns;
	info.rowKeyAssigned = GS_TRUE;
	GSContainer *container = NULL;
	CHECK_OF(gsPutContainerGeneral(store, argv[3], &info, GS_FALSE, &container), store);

	GSRow *rows[MULTI_ROWS];
	for (int i = 0; i < MULTI_ROWS; i++) CHECK_OF(gsCreateRowByContainer(container, &rows[i]), container);
	const double endS = nowS() + atof(argv[5]);
	int32_t seq = atoi(argv[4]);
	for (int put = 0; nowS() < endS; put++) {
		const int count = put % 3 == 2 ? MULTI_ROWS : 1;
		for (int i = 0; i < count; i++) {
			CHECK_OF(gsSetRowFieldByInteger(rows[i], 0, seq + i), container);
			CHECK_OF(gsSetRowFieldByInteger(rows[i], 1, atoi(argv[4])), container);
		}
		if (count == 1) {
			CHECK_OF(gsPutRow(container, NULL, rows[0], NULL), container);
		} else {
			CHECK_OF(gsPutMultipleRows(container, (const void *const *) rows, (size_t) count, NULL),
				container);
		}
		for (int i = 0; i < count; i++) printf("ack %d\n", seq + i);
		fflush(stdout);
		seq += count;
	}
	printf("end\n");
	for (int i = 0; i < MULTI_ROWS; i++) gsCloseRow(&rows[i]);
	gsCloseContainer(&container, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
