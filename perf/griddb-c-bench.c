/*
 * The C side of the griddb/ benchmarks (perf/workloads/griddb-client.ts): GridDB's own C client 5.8
 * loading a store node the way a GridDB application does, beside store's TypeScript client in the
 * same run. One process is one writer with one connection (a GSGridStore of its own).
 *
 *   griddb-c-bench <port> <cluster> ingest <rows file> <container prefix> <writer> <writer count>
 *   griddb-c-bench <port> <cluster> put <container> <duration ms> <first row index>
 *
 * Both connect and open their containers first, print "ready", and wait for a line on stdin, so
 * that the caller times the load alone (no process start, no connect) and starts every writer at
 * once. Then:
 *   ingest  sends the batches i of the rows file with i % <writer count> == <writer>, each as one
 *           gsPutMultipleRows into container <prefix>cpu_host_<host>, its rows set field by
 *           field (the application's work, as store's client validates and encodes its rows
 *           inside its timing) on GSRow objects made once (gsCreateRowByContainer) and reused for
 *           every batch, as a loader would (the hosts' containers share one schema); prints
 *           "done <rows> <CPU ms>" (this process's user and system CPU over the load).
 *   put     puts one row at a time (gsPutRow, auto-commit) and waits for each acknowledgement,
 *           starting new puts for <duration ms>; row i has timestamp 2016-01-01 + i × 10 s;
 *           prints "done <puts> <elapsed ms> <CPU ms>".
 * Any failure prints the client's error stack on stderr and exits 1.
 *
 * The rows file, written by griddb-client.ts, little-endian, batch after batch:
 *
 *   +----------------+----------------+------------------------------------------------+
 *   | host index u32 | row count u32  | row count × ( timestamp ms i64 | 10 × f64 )    |
 *   +----------------+----------------+------------------------------------------------+
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include "gridstore.h"

enum { FIELD_COUNT = 10, BATCH_ROWS_MAX = 100000, NAME_BYTES_MAX = 256 };
/* 2016-01-01T00:00:00Z, TSBS's start (perf/tsbs.ts), and its interval. */
static const int64_t START_MS = 1451606400000LL;
static const int64_t INTERVAL_MS = 10000;

static void printError(void *resource) {
	char message[1024];
	if (resource == NULL) return;
	size_t depth = gsGetErrorStackSize(resource);
	for (size_t i = 0; i < depth; i++) {
		gsFormatErrorMessage(resource, i, message, sizeof(message));
		fprintf(stderr, "  [%d] %s\n", (int) gsGetErrorCode(resource, i), message);
	}
}

#define CHECK(call, resource) do { GSResult r_ = (call); if (!GS_SUCCEEDED(r_)) { \
	fprintf(stderr, "line %d: %s: %d\n", __LINE__, #call, (int) r_); printError(resource); \
	exit(1); } } while (0)

static double nowMs(void) {
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double) now.tv_sec * 1000.0 + (double) now.tv_nsec / 1e6;
}

/* This process's user and system CPU so far. */
static double cpuMs(void) {
	struct rusage usage;
	getrusage(RUSAGE_SELF, &usage);
	return (double) (usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) * 1000.0 +
		(double) (usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1000.0;
}

static void waitForGo(void) {
	char line[16];
	printf("ready\n");
	fflush(stdout);
	if (fgets(line, sizeof(line), stdin) == NULL) exit(1);
}

static void setRow(GSRow *row, int64_t timestampMs, const double *fields) {
	CHECK(gsSetRowFieldByTimestamp(row, 0, timestampMs), row);
	for (int f = 0; f < FIELD_COUNT; f++) {
		CHECK(gsSetRowFieldByDouble(row, 1 + f, fields[f]), row);
	}
}

static int ingest(GSGridStore *store, const char *path, const char *prefix, uint32_t writer,
		uint32_t writerCount) {
	FILE *file = fopen(path, "rb");
	if (file == NULL) { perror(path); return 1; }
	/* One container per host, opened before the go; hosts are numbered from 0 without gaps. */
	GSContainer **containers = NULL;
	uint32_t containerCount = 0;
	uint32_t header[2];
	while (fread(header, sizeof(header), 1, file) == 1) {
		if (header[0] >= containerCount) {
			containers = realloc(containers, (header[0] + 1) * sizeof(*containers));
			for (uint32_t h = containerCount; h <= header[0]; h++) {
				char name[NAME_BYTES_MAX];
				snprintf(name, sizeof(name), "%scpu_host_%u", prefix, h);
				CHECK(gsGetContainerGeneral(store, name, &containers[h]), store);
				if (containers[h] == NULL) { fprintf(stderr, "no container %s\n", name); return 1; }
			}
			containerCount = header[0] + 1;
		}
		if (fseek(file, (long) header[1] * (8 + FIELD_COUNT * 8), SEEK_CUR) != 0) return 1;
	}
	rewind(file);
	static unsigned char values[BATCH_ROWS_MAX * (8 + FIELD_COUNT * 8)];
	static GSRow *rows[BATCH_ROWS_MAX];
	waitForGo();
	const double cpuStartMs = cpuMs();
	uint64_t rowTotal = 0;
	for (uint64_t batch = 0; fread(header, sizeof(header), 1, file) == 1; batch++) {
		const size_t rowBytes = 8 + FIELD_COUNT * 8;
		if (header[1] > BATCH_ROWS_MAX) { fprintf(stderr, "batch too large\n"); return 1; }
		if (batch % writerCount != writer) {
			if (fseek(file, (long) (header[1] * rowBytes), SEEK_CUR) != 0) return 1;
			continue;
		}
		if (fread(values, rowBytes, header[1], file) != header[1]) return 1;
		GSContainer *container = containers[header[0]];
		for (uint32_t r = 0; r < header[1]; r++) {
			int64_t timestampMs;
			double fields[FIELD_COUNT];
			memcpy(&timestampMs, values + r * rowBytes, 8);
			memcpy(fields, values + r * rowBytes + 8, sizeof(fields));
			if (rows[r] == NULL) CHECK(gsCreateRowByContainer(container, &rows[r]), container);
			setRow(rows[r], timestampMs, fields);
		}
		CHECK(gsPutMultipleRows(container, (const void *const *) rows, header[1], NULL), container);
		rowTotal += header[1];
	}
	printf("done %llu %.3f\n", (unsigned long long) rowTotal, cpuMs() - cpuStartMs);
	for (uint32_t r = 0; r < BATCH_ROWS_MAX && rows[r] != NULL; r++) gsCloseRow(&rows[r]);
	fclose(file);
	for (uint32_t h = 0; h < containerCount; h++) gsCloseContainer(&containers[h], GS_TRUE);
	free(containers);
	return 0;
}

static int put(GSGridStore *store, const char *name, double durationMs, int64_t firstIndex) {
	GSContainer *container = NULL;
	CHECK(gsGetContainerGeneral(store, name, &container), store);
	if (container == NULL) { fprintf(stderr, "no container %s\n", name); return 1; }
	GSRow *row = NULL;
	CHECK(gsCreateRowByContainer(container, &row), container);
	waitForGo();
	const double startMs = nowMs();
	const double cpuStartMs = cpuMs();
	int64_t index = firstIndex;
	while (nowMs() - startMs < durationMs) {
		double fields[FIELD_COUNT];
		for (int f = 0; f < FIELD_COUNT; f++) fields[f] = (double) ((index * 7 + f * 13) % 100);
		setRow(row, START_MS + index * INTERVAL_MS, fields);
		CHECK(gsPutRow(container, NULL, row, NULL), container);
		index++;
	}
	printf("done %lld %.3f %.3f\n", (long long) (index - firstIndex), nowMs() - startMs,
		cpuMs() - cpuStartMs);
	gsCloseRow(&row);
	gsCloseContainer(&container, GS_TRUE);
	return 0;
}

int main(int argc, char **argv) {
	if (argc < 4) { fprintf(stderr, "usage: see the top of griddb-c-bench.c\n"); return 2; }
	char member[64];
	snprintf(member, sizeof(member), "127.0.0.1:%s", argv[1]);
	const GSPropertyEntry properties[] = {
		{ "notificationMember", member }, { "clusterName", argv[2] },
		{ "user", "admin" }, { "password", "admin" }, { "failoverTimeout", "10" },
	};
	GSGridStore *store = NULL;
	CHECK(gsGetGridStore(gsGetDefaultFactory(), properties,
		sizeof(properties) / sizeof(properties[0]), &store), NULL);
	int code = 2;
	if (strcmp(argv[3], "ingest") == 0 && argc == 8) {
		code = ingest(store, argv[4], argv[5], (uint32_t) atoi(argv[6]), (uint32_t) atoi(argv[7]));
	} else if (strcmp(argv[3], "put") == 0 && argc == 7) {
		code = put(store, argv[4], atof(argv[5]), atoll(argv[6]));
	} else {
		fprintf(stderr, "usage: see the top of griddb-c-bench.c\n");
	}
	gsCloseGridStore(&store, GS_TRUE);
	return code;
}
