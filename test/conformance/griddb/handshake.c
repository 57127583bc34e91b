/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/handshake.test.ts):
 * connects with GridDB's C client as an application would (notificationMember), and checks what
 * needs the handshake: CONNECT, LOGIN, GET_PARTITION_ADDRESS.
 *
 *   handshake <port> <clusterName> <user> <password> <expectedResult> <partitionCount> [name...]
 *
 * expectedResult is 0 when the login must succeed, else the GSResult the application must get
 * from gsGetPartitionCount (e.g. 10005 for a wrong password). On success it prints one line per
 * name, "<name> <partition index>", the partition the client computes for that container. Exits
 * 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#include "conformance.h"

int main(int argc, char **argv) {
	if (argc < 7) {
		fprintf(stderr, "usage: handshake port clusterName user password expectedResult "
				"partitionCount [name...]\n");
		return 2;
	}
	char member[64];
	snprintf(member, sizeof(member), "127.0.0.1:%s", argv[1]);
	const GSPropertyEntry properties[] = {
		{ "notificationMember", member },
		{ "clusterName", argv[2] },
		{ "user", argv[3] },
		{ "password", argv[4] },
		/* A node that stops answering fails the program in seconds, not the default 120 s. */
		{ "failoverTimeout", "10" },
	};
	const GSResult expected = (GSResult) atoi(argv[5]);
	const int32_t expectedCount = (int32_t) atoi(argv[6]);

	GSGridStore *store = NULL;
	GSResult result = gsGetGridStore(gsGetDefaultFactory(), properties,
			sizeof(properties) / sizeof(properties[0]), &store);
	if (result != GS_RESULT_OK) {
		fprintf(stderr, "gsGetGridStore: %d\n", (int) result);
		return 1;
	}
	GSPartitionController *controller = NULL;
	result = gsGetPartitionController(store, &controller);
	if (result != GS_RESULT_OK) {
		fprintf(stderr, "gsGetPartitionController: %d\n", (int) result);
		return 1;
	}
	int32_t count = -1;
	result = gsGetPartitionCount(controller, &count);
	if (result != expected) {
		fprintf(stderr, "gsGetPartitionCount returned %d, expected %d\n", (int) result,
				(int) expected);
		printError(controller);
		return 1;
	}
	if (result != GS_RESULT_OK) {
		/* What the application can read of the error: code and message of each level. */
		printError(gsGetErrorStackSize(controller) > 0 ? (void *) controller : (void *) store);
		printf("error %d\n", (int) result);
		gsCloseGridStore(&store, GS_TRUE);
		return 0;
	}
	if (count != expectedCount) {
		fprintf(stderr, "partition count %d, expected %d\n", (int) count, (int) expectedCount);
		return 1;
	}
	for (int i = 7; i < argc; i++) {
		int32_t index = -1;
		result = gsGetPartitionIndexOfContainer(controller, argv[i], &index);
		if (result != GS_RESULT_OK) {
			fprintf(stderr, "gsGetPartitionIndexOfContainer(%s): %d\n", argv[i], (int) result);
			printError(controller);
			return 1;
		}
		printf("%s %d\n", argv[i], (int) index);
	}
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
