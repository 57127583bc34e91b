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
 *           gsPutMultipleRows into container <prefix>cpu_host_<host>, opened with the static
 *           binding of a CpuRow struct (GS_STRUCT_BINDING, gsPutTimeSeries): the C API's own way
 *           to put rows in bulk, as GridDB's samples do, where the client reads each field from
 *           the struct by its offset. The rows are copied into an array of structs (made once)
 *           inside the timing, the loader's work, as store's client has its rows ready as arrays;
 *           the client encodes them inside the timing, as store's client does. Prints
 *           "done <rows> <CPU ms>" (this process's user and system CPU over the load).
 *           (Before, the rows were set field by field on reused GSRows, gsSetRowFieldByDouble
 *           and gsSetRowFieldByTimestamp: eleven checked API calls a row, 0.8 µs of the client's
 *           CPU a row against 0.2 µs for store's TypeScript client, docs/benchmarks.md.)
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
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
/* CHECK_OF's failure ends the process: the checks sit in functions that return no status. */
#define CHECK_FAILED() exit(1)
#include "../test/conformance/griddb/conformance.h"

enum { FIELD_COUNT = 10, BATCH_ROWS_MAX = 100000, NAME_BYTES_MAX = 256 };
/* 2016-01-01T00:00:00Z, TSBS's start (perf/tsbs.ts), and its interval. */
static const int64_t START_MS = 1451606400000LL;
static const int64_t INTERVAL_MS = 10000;

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

/* A TSBS cpu row, bound to the containers' columns (perf/tsbs.ts tsbsContainerDefinition). */
typedef struct {
	GSTimestamp ts;
	double usage_user, usage_system, usage_idle, usage_nice, usage_iowait;
	double usage_irq, usage_softirq, usage_steal, usage_guest, usage_guest_nice;
} CpuRow;

GS_STRUCT_BINDING(CpuRow,
	GS_STRUCT_BINDING_KEY(ts, GS_TYPE_TIMESTAMP)
	GS_STRUCT_BINDING_ELEMENT(usage_user, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_system, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_idle, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_nice, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_iowait, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_irq, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_softirq, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_steal, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_guest, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(usage_guest_nice, GS_TYPE_DOUBLE)
);

/* The ten fields are copied from the rows file in one memcpy: they must lie back to back. */
_Static_assert(offsetof(CpuRow, usage_guest_nice) ==
	offsetof(CpuRow, usage_user) + (FIELD_COUNT - 1) * sizeof(double), "CpuRow's fields packed");

static void setRow(GSRow *row, int64_t timestampMs, const double *fields) {
	CHECK_OF(gsSetRowFieldByTimestamp(row, 0, timestampMs), row);
	for (int f = 0; f < FIELD_COUNT; f++) {
		CHECK_OF(gsSetRowFieldByDouble(row, 1 + f, fields[f]), row);
	}
}

static int ingest(GSGridStore *store, const char *path, const char *prefix, uint32_t writer,
		uint32_t writerCount) {
	FILE *file = fopen(path, "rb");
	if (file == NULL) { perror(path); return 1; }
	/* One container per host, opened before the go; hosts are numbered from 0 without gaps. */
	GSTimeSeries **containers = NULL;
	uint32_t containerCount = 0;
	uint32_t header[2];
	const size_t rowBytes = 8 + FIELD_COUNT * 8;
	while (fread(header, sizeof(header), 1, file) == 1) {
		if (header[0] >= containerCount) {
			containers = realloc(containers, (header[0] + 1) * sizeof(*containers));
			for (uint32_t h = containerCount; h <= header[0]; h++) {
				char name[NAME_BYTES_MAX];
				snprintf(name, sizeof(name), "%scpu_host_%u", prefix, h);
				/* gsPutTimeSeries of the existing container's schema opens it (this node
				 * answers no GET_CONTAINER, 105, which gsGetTimeSeries sends). */
				CHECK_OF(gsPutTimeSeries(store, name, GS_GET_STRUCT_BINDING(CpuRow), NULL, GS_FALSE,
					&containers[h]), store);
				if (containers[h] == NULL) { fprintf(stderr, "no container %s\n", name); return 1; }
			}
			containerCount = header[0] + 1;
		}
		if (fseek(file, (long) (header[1] * rowBytes), SEEK_CUR) != 0) return 1;
	}
	rewind(file);
	static unsigned char values[BATCH_ROWS_MAX * (8 + FIELD_COUNT * 8)];
	static CpuRow rows[BATCH_ROWS_MAX];
	static const void *rowPointers[BATCH_ROWS_MAX];
	for (uint32_t r = 0; r < BATCH_ROWS_MAX; r++) rowPointers[r] = &rows[r];
	waitForGo();
	const double cpuStartMs = cpuMs();
	uint64_t rowTotal = 0;
	for (uint64_t batch = 0; fread(header, sizeof(header), 1, file) == 1; batch++) {
		if (header[1] > BATCH_ROWS_MAX) { fprintf(stderr, "batch too large\n"); return 1; }
		if (batch % writerCount != writer) {
			if (fseek(file, (long) (header[1] * rowBytes), SEEK_CUR) != 0) return 1;
			continue;
		}
		if (fread(values, rowBytes, header[1], file) != header[1]) return 1;
		for (uint32_t r = 0; r < header[1]; r++) {
			memcpy(&rows[r].ts, values + r * rowBytes, 8);
			memcpy(&rows[r].usage_user, values + r * rowBytes + 8, FIELD_COUNT * 8);
		}
		GSTimeSeries *container = containers[header[0]];
		CHECK_OF(gsPutMultipleRows(container, rowPointers, header[1], NULL), container);
		rowTotal += header[1];
	}
	printf("done %llu %.3f\n", (unsigned long long) rowTotal, cpuMs() - cpuStartMs);
	fclose(file);
	for (uint32_t h = 0; h < containerCount; h++) gsCloseContainer(&containers[h], GS_TRUE);
	free(containers);
	return 0;
}

static int put(GSGridStore *store, const char *name, double durationMs, int64_t firstIndex) {
	GSContainer *container = NULL;
	CHECK_OF(gsGetContainerGeneral(store, name, &container), store);
	if (container == NULL) { fprintf(stderr, "no container %s\n", name); return 1; }
	GSRow *row = NULL;
	CHECK_OF(gsCreateRowByContainer(container, &row), container);
	waitForGo();
	const double startMs = nowMs();
	const double cpuStartMs = cpuMs();
	int64_t index = firstIndex;
	while (nowMs() - startMs < durationMs) {
		double fields[FIELD_COUNT];
		for (int f = 0; f < FIELD_COUNT; f++) fields[f] = (double) ((index * 7 + f * 13) % 100);
		setRow(row, START_MS + index * INTERVAL_MS, fields);
		CHECK_OF(gsPutRow(container, NULL, row, NULL), container);
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
	CHECK_OF(gsGetGridStore(gsGetDefaultFactory(), properties,
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
