/*
 * What every conformance program of this suite shares (the .c files beside this header):
 * printing a GridDB error stack, connecting as admin, and CHECK / EXPECT, which print where and what went wrong on
 * stderr and return 1 from main. The compiled-program cache (test/support/griddb-c-client.ts)
 * hashes this header with each program, so a change here rebuilds them all.
 *
 * CHECK prints the error stack of `store`; a program whose error stacks live elsewhere defines
 * CHECK_ERROR_SOURCES() before including this header.
 */
#ifndef CONFORMANCE_H
#define CONFORMANCE_H

#include <stdio.h>
#include "gridstore.h"

/* The error stack of a client resource (store, container, row set …), one line per entry. */
static void printError(void *resource) {
	char message[1024];
	if (resource == NULL) return;
	size_t depth = gsGetErrorStackSize(resource);
	for (size_t i = 0; i < depth; i++) {
		gsFormatErrorMessage(resource, i, message, sizeof(message));
		fprintf(stderr, "  [%d] %s\n", (int) gsGetErrorCode(resource, i), message);
	}
}

/*
 * A GridStore on the node at 127.0.0.1:<port> of cluster <cluster>, as admin/admin, with a
 * failover timeout of 10 s (the client copies the properties it is given).
 */
static inline GSResult connectAdmin(const char *port, const char *cluster, GSGridStore **store) {
	char member[64];
	snprintf(member, sizeof(member), "127.0.0.1:%s", port);
	const GSPropertyEntry properties[] = {
		{ "notificationMember", member }, { "clusterName", cluster },
		{ "user", "admin" }, { "password", "admin" }, { "failoverTimeout", "10" },
	};
	return gsGetGridStore(gsGetDefaultFactory(), properties,
		sizeof(properties) / sizeof(properties[0]), store);
}

#ifndef CHECK_ERROR_SOURCES
#define CHECK_ERROR_SOURCES() printError(store)
#endif

#define CHECK(call) do { GSResult r_ = (call); if (!GS_SUCCEEDED(r_)) { \
	fprintf(stderr, "line %d: %s: %d\n", __LINE__, #call, (int) r_); CHECK_ERROR_SOURCES(); \
	return 1; } } while (0)
#define EXPECT(cond, ...) do { if (!(cond)) { fprintf(stderr, "line %d: ", __LINE__); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); return 1; } } while (0)

#endif
