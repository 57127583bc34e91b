/*
 * What every conformance program of this suite shares (the .c files beside this header):
 * printing a GridDB error stack, connecting as admin, and CHECK / EXPECT, which print where and what went wrong on
 * stderr and return 1 from main; the time series of Points that several programs start with.
 * The C writers of the crash test and the benchmark (test/crash/griddb-crash-writer.c,
 * perf/griddb-c-bench.c) take printError and CHECK_OF from here too. The compiled-program cache
 * (test/support/griddb-c-client.ts) hashes this header with each program including it, so a change
 * here rebuilds them all.
 *
 * CHECK prints the error stack of `store`; a program whose error stacks live elsewhere defines
 * CHECK_ERROR_SOURCES() before including this header. CHECK_OF prints that of the resource it is
 * given. Both return 1 from the function they are in; a program whose checks sit in functions of
 * other types defines CHECK_FAILED() (as exit(1)) before including this header.
 */
#ifndef CONFORMANCE_H
#define CONFORMANCE_H

#include <stdio.h>
#include <stdlib.h>
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
#ifndef CHECK_FAILED
#define CHECK_FAILED() return 1
#endif

#define CHECK(call) do { GSResult r_ = (call); if (!GS_SUCCEEDED(r_)) { \
	fprintf(stderr, "line %d: %s: %d\n", __LINE__, #call, (int) r_); CHECK_ERROR_SOURCES(); \
	CHECK_FAILED(); } } while (0)
#define CHECK_OF(call, resource) do { GSResult r_ = (call); if (!GS_SUCCEEDED(r_)) { \
	fprintf(stderr, "line %d: %s: %d\n", __LINE__, #call, (int) r_); printError(resource); \
	CHECK_FAILED(); } } while (0)
#define EXPECT(cond, ...) do { if (!(cond)) { fprintf(stderr, "line %d: ", __LINE__); \
	fprintf(stderr, __VA_ARGS__); fprintf(stderr, "\n"); return 1; } } while (0)

/* A point of a time series: its key and a DOUBLE (append.c, flush.c, refused.c). */
typedef struct { GSTimestamp ts; double value; } Point;
GS_STRUCT_BINDING(Point,
	GS_STRUCT_BINDING_KEY(ts, GS_TYPE_TIMESTAMP)
	GS_STRUCT_BINDING_ELEMENT(value, GS_TYPE_DOUBLE)
);

/*
 * The start of a program run as `<program> <port> <cluster> <count>` (append.c, flush.c): the
 * count, a GridStore as connectAdmin gives it, and time series <seriesName> of Points. Returns 0
 * when all are there; else what main returns: 2 for a wrong command line, 1 for a failed call
 * (its error printed).
 */
static inline int openPointSeries(int argc, char **argv, const char *program,
		const char *seriesName, long *count, GSGridStore **storeOut, GSTimeSeries **series) {
	if (argc != 4) {
		fprintf(stderr, "usage: %s <port> <cluster> <count>\n", program);
		return 2;
	}
	*count = atol(argv[3]);
	GSGridStore *store = NULL;
	CHECK_OF(connectAdmin(argv[1], argv[2], &store), store);
	*storeOut = store;
	CHECK_OF(gsPutTimeSeries(store, seriesName, GS_GET_STRUCT_BINDING(Point), NULL, GS_FALSE,
		series), store);
	return 0;
}

#endif
