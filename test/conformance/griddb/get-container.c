/*
 * gsGetCollection / gsGetTimeSeries (GET_CONTAINER 105) with struct bindings on containers that
 * store's own client created (get-container.test.ts): rows put and read through the handles, a
 * missing container (NULL, no error), a binding whose columns differ from the container's (the
 * client's schema check), a time series asked for as a collection (the node's refusal), and the
 * client's container cache (containerCacheSize: the second get is answered from the cache).
 *
 *   get-container <port> <cluster>
 *
 * Prints "mismatch <code>", "kind <code>" and "cached-mismatch <code>" (the GSResult of each
 * refused get) on stdout; any other difference prints on stderr and exits 1.
 */
#include <string.h>
#include "conformance.h"

typedef struct { int32_t id; const GSChar *name; int64_t count; } ColRow;
GS_STRUCT_BINDING(ColRow,
	GS_STRUCT_BINDING_KEY(id, GS_TYPE_INTEGER)
	GS_STRUCT_BINDING_ELEMENT(name, GS_TYPE_STRING)
	GS_STRUCT_BINDING_ELEMENT(count, GS_TYPE_LONG)
);

/* GC_Col's columns but its last one a DOUBLE: the container's schema is not this binding's. */
typedef struct { int32_t id; const GSChar *name; double count; } WrongRow;
GS_STRUCT_BINDING(WrongRow,
	GS_STRUCT_BINDING_KEY(id, GS_TYPE_INTEGER)
	GS_STRUCT_BINDING_ELEMENT(name, GS_TYPE_STRING)
	GS_STRUCT_BINDING_ELEMENT(count, GS_TYPE_DOUBLE)
);

typedef struct { GSTimestamp ts; double value; const GSChar *status; } TsRow;
GS_STRUCT_BINDING(TsRow,
	GS_STRUCT_BINDING_KEY(ts, GS_TYPE_TIMESTAMP)
	GS_STRUCT_BINDING_ELEMENT(value, GS_TYPE_DOUBLE)
	GS_STRUCT_BINDING_ELEMENT(status, GS_TYPE_STRING)
);

static int withCache(const char *port, const char *cluster) {
	char member[64];
	snprintf(member, sizeof(member), "127.0.0.1:%s", port);
	const GSPropertyEntry properties[] = {
		{ "notificationMember", member }, { "clusterName", cluster },
		{ "user", "admin" }, { "password", "admin" }, { "failoverTimeout", "10" },
		{ "containerCacheSize", "16" },
	};
	GSGridStore *store = NULL;
	CHECK(gsGetGridStore(gsGetDefaultFactory(), properties,
		sizeof(properties) / sizeof(properties[0]), &store));
	GSCollection *first = NULL;
	GSCollection *second = NULL;
	CHECK(gsGetCollection(store, "GC_Col", GS_GET_STRUCT_BINDING(ColRow), &first));
	EXPECT(first != NULL, "GC_Col through a store with a container cache is NULL");
	gsCloseContainer(&first, GS_TRUE);
	CHECK(gsGetCollection(store, "GC_Col", GS_GET_STRUCT_BINDING(ColRow), &second));
	EXPECT(second != NULL, "GC_Col again (from the cache) is NULL");
	ColRow row = { 3, "three", 33 };
	GSBool exists = GS_TRUE;
	CHECK(gsPutRow(second, NULL, &row, &exists));
	EXPECT(!exists, "row 3 existed before its put");
	GSCollection *wrong = NULL;
	GSResult refused = gsGetCollection(store, "GC_Col", GS_GET_STRUCT_BINDING(WrongRow), &wrong);
	EXPECT(!GS_SUCCEEDED(refused) && wrong == NULL, "a cached container took a wrong binding");
	printf("cached-mismatch %d\n", (int) refused);
	gsCloseContainer(&second, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: get-container <port> <cluster>\n");
		return 2;
	}
	GSGridStore *store = NULL;
	CHECK(connectAdmin(argv[1], argv[2], &store));

	GSCollection *missing = (GSCollection *) 1;
	CHECK(gsGetCollection(store, "GC_Missing", GS_GET_STRUCT_BINDING(ColRow), &missing));
	EXPECT(missing == NULL, "a missing collection is not NULL");
	GSTimeSeries *missingSeries = (GSTimeSeries *) 1;
	CHECK(gsGetTimeSeries(store, "GC_Missing", GS_GET_STRUCT_BINDING(TsRow), &missingSeries));
	EXPECT(missingSeries == NULL, "a missing time series is not NULL");

	GSCollection *collection = NULL;
	CHECK(gsGetCollection(store, "GC_Col", GS_GET_STRUCT_BINDING(ColRow), &collection));
	EXPECT(collection != NULL, "GC_Col is NULL");
	for (int32_t id = 1; id <= 2; id++) {
		ColRow row = { id, id == 1 ? "one" : "two", (int64_t) id * 11 };
		GSBool exists = GS_TRUE;
		CHECK(gsPutRow(collection, NULL, &row, &exists));
		EXPECT(!exists, "row %d existed before its put", (int) id);
	}
	ColRow read;
	memset(&read, 0, sizeof(read));
	int32_t key = 2;
	GSBool found = GS_FALSE;
	CHECK(gsGetRow(collection, &key, &read, &found));
	EXPECT(found && read.id == 2 && strcmp(read.name, "two") == 0 && read.count == 22,
		"row 2 read back as found=%d id=%d count=%lld", (int) found, (int) read.id,
		(long long) read.count);

	GSTimeSeries *series = NULL;
	CHECK(gsGetTimeSeries(store, "GC_TS", GS_GET_STRUCT_BINDING(TsRow), &series));
	EXPECT(series != NULL, "GC_TS is NULL");
	for (int i = 1; i <= 3; i++) {
		TsRow row = { (GSTimestamp) i * 1000, i * 0.5, i == 2 ? "warn" : "ok" };
		GSBool exists = GS_TRUE;
		CHECK(gsPutRow(series, NULL, &row, &exists));
	}
	TsRow point;
	memset(&point, 0, sizeof(point));
	GSTimestamp at = 2000;
	CHECK(gsGetRow(series, &at, &point, &found));
	EXPECT(found && point.ts == 2000 && point.value == 1.0 && strcmp(point.status, "warn") == 0,
		"time series row 2000 read back as found=%d value=%g", (int) found, point.value);

	GSCollection *wrong = (GSCollection *) 1;
	GSResult refused = gsGetCollection(store, "GC_Col", GS_GET_STRUCT_BINDING(WrongRow), &wrong);
	EXPECT(!GS_SUCCEEDED(refused) && wrong == NULL, "GC_Col took a binding of other columns");
	printf("mismatch %d\n", (int) refused);

	GSCollection *asCollection = (GSCollection *) 1;
	refused = gsGetCollection(store, "GC_TS", GS_GET_STRUCT_BINDING(TsRow), &asCollection);
	EXPECT(!GS_SUCCEEDED(refused) && asCollection == NULL, "a time series opened as a collection");
	printf("kind %d\n", (int) refused);

	gsCloseContainer(&series, GS_TRUE);
	gsCloseContainer(&collection, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return withCache(argv[1], argv[2]);
}
