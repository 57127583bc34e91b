/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/sessions.test.ts):
 * sessions and manual transactions through GridDB's C client, with two GridStores A and B (B
 * with transactionTimeout 2 s) on the collection "Tx01" (INTEGER key, STRING value):
 *
 *   sessions <port> <clusterName>
 *
 * 1. A: auto-commit off, puts rows 1 and 2 (BEGIN, CONTINUE): A sees them, B does not; A
 *    commits (COMMIT_TRANSACTION): B sees them.
 * 2. A: puts row 3 and aborts (ABORT_TRANSACTION): neither sees row 3.
 * 3. A: puts row 1 again (its transaction holds row 1's lock); B's put of row 1 waits and fails
 *    at B's transaction timeout: prints "lock-timeout <code>" (the first code of B's error
 *    stack); A commits and B reads A's value. Then A gets row 2 for update (gsGetRowForUpdate:
 *    the lock without a write): B's put of row 2 fails the same way ("for-update <code>").
 * 4. A: auto-commit on again, puts row 4: B sees it at once.
 * 5. "Tx02" with a composite key (INTEGER a, STRING b): put, get and delete by the key
 *    (gsGetRowGeneral, gsDeleteRowGeneral).
 * 6. "Tx03" without a row key: two auto-commit puts (the client opens a session for them:
 *    CREATE_SESSION), then two puts in a transaction that commits, and one that aborts; the
 *    test reads "Tx03" through store's own client (4 rows). Closing the containers closes
 *    their sessions (CLOSE_SESSION).
 * 7. A GridStore C with containerCacheSize 4 (its closed containers keep their sessions): a
 *    transaction on "Tx01" (row 5), the container closed and got again (the same session, its
 *    statement ids counting on), a second transaction (row 6); closing C closes the cached
 *    session (CLOSE_MULTIPLE_SESSIONS).
 * Exits 0 when everything is as expected, 1 on a difference (saying which on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#define CHECK_ERROR_SOURCES() (printError(storeA), printError(storeB))
#include "conformance.h"

static GSGridStore *storeA = NULL;
static GSGridStore *storeB = NULL;

static const GSColumnInfo COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};
static const GSColumnInfo COMPOSITE_COLUMNS[] = {
	{ "a", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "b", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "v", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};
static const int32_t COMPOSITE_KEY[] = { 0, 1 };

static GSGridStore *storeOf(const char *member, const char *cluster, const char *timeoutS,
		const char *cacheSize) {
	const GSPropertyEntry properties[] = {
		{ "notificationMember", member }, { "clusterName", cluster },
		{ "user", "admin" }, { "password", "admin" }, { "failoverTimeout", "10" },
		{ "transactionTimeout", timeoutS }, { "containerCacheSize", cacheSize },
	};
	GSGridStore *store = NULL;
	if (!GS_SUCCEEDED(gsGetGridStore(gsGetDefaultFactory(), properties,
			sizeof(properties) / sizeof(properties[0]), &store))) {
		return NULL;
	}
	return store;
}

static int put(GSContainer *container, int32_t id, const GSChar *s) {
	GSRow *row = NULL;
	GSBool exists;
	CHECK(gsCreateRowByContainer(container, &row));
	CHECK(gsSetRowFieldByInteger(row, 0, id));
	CHECK(gsSetRowFieldByString(row, 1, s));
	CHECK(gsPutRow(container, NULL, row, &exists));
	gsCloseRow(&row);
	return 0;
}

/* Whether `container` sees row `id`, and then with value `s` (NULL: must not see it). */
static int sees(GSContainer *container, int32_t id, const GSChar *s) {
	GSRow *row = NULL;
	GSBool exists;
	CHECK(gsCreateRowByContainer(container, &row));
	CHECK(gsGetRow(container, &id, row, &exists));
	if (s == NULL) {
		EXPECT(!exists, "row %d is seen", (int) id);
	} else {
		EXPECT(exists, "row %d is not seen", (int) id);
		const GSChar *value;
		CHECK(gsGetRowFieldAsString(row, 1, &value));
		EXPECT(strcmp(value, s) == 0, "row %d: s = %s, not %s", (int) id, value, s);
	}
	gsCloseRow(&row);
	return 0;
}

static int composite(GSGridStore *store) {
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = "Tx02";
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 3;
	info.columnInfoList = COMPOSITE_COLUMNS;
	info.rowKeyColumnCount = 2;
	info.rowKeyColumnList = COMPOSITE_KEY;
	GSContainer *container = NULL;
	CHECK(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &container));
	GSRow *row = NULL;
	GSBool exists;
	CHECK(gsCreateRowByContainer(container, &row));
	for (int32_t a = 1; a <= 2; a++) {
		CHECK(gsSetRowFieldByInteger(row, 0, a));
		CHECK(gsSetRowFieldByString(row, 1, "k\xc3\xa9y"));
		CHECK(gsSetRowFieldByLong(row, 2, 100 * a));
		CHECK(gsPutRow(container, NULL, row, &exists));
		EXPECT(!exists, "composite row %d existed", (int) a);
	}
	GSRowKey *key = NULL;
	CHECK(gsCreateRowKeyByStore(store, &info, &key));
	CHECK(gsSetRowFieldByInteger(key, 0, 2));
	CHECK(gsSetRowFieldByString(key, 1, "k\xc3\xa9y"));
	CHECK(gsGetRowGeneral(container, key, row, GS_FALSE, &exists));
	EXPECT(exists, "composite row (2, key) not found");
	int64_t v;
	CHECK(gsGetRowFieldAsLong(row, 2, &v));
	EXPECT(v == 200, "composite row (2, key): v = %lld", (long long) v);
	CHECK(gsDeleteRowGeneral(container, key, &exists));
	EXPECT(exists, "composite row (2, key) did not exist at its delete");
	CHECK(gsGetRowGeneral(container, key, row, GS_FALSE, &exists));
	EXPECT(!exists, "composite row (2, key) found after its delete");
	CHECK(gsSetRowFieldByString(key, 1, "key"));
	CHECK(gsSetRowFieldByInteger(key, 0, 1));
	CHECK(gsGetRowGeneral(container, key, row, GS_FALSE, &exists));
	EXPECT(!exists, "composite row (1, \"key\") found: the key's string differs");
	gsCloseRow(&key);
	gsCloseRow(&row);
	gsCloseContainer(&container, GS_TRUE);
	return 0;
}

static int keyless(GSGridStore *store) {
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = "Tx03";
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 2;
	info.columnInfoList = COLUMNS;
	info.rowKeyAssigned = GS_FALSE;
	GSContainer *container = NULL;
	CHECK(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &container));
	if (put(container, 1, "auto") != 0 || put(container, 2, "auto") != 0) return 1;
	CHECK(gsSetAutoCommit(container, GS_FALSE));
	if (put(container, 3, "committed") != 0 || put(container, 4, "committed") != 0) return 1;
	CHECK(gsCommit(container));
	if (put(container, 5, "aborted") != 0) return 1;
	CHECK(gsAbort(container));
	gsCloseContainer(&container, GS_TRUE);
	return 0;
}

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: sessions port clusterName\n");
		return 2;
	}
	char member[64];
	snprintf(member, sizeof(member), "127.0.0.1:%s", argv[1]);
	storeA = storeOf(member, argv[2], "300", "0");
	storeB = storeOf(member, argv[2], "2", "0");
	EXPECT(storeA != NULL && storeB != NULL, "no GridStore");

	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	info.name = "Tx01";
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = 2;
	info.columnInfoList = COLUMNS;
	info.rowKeyAssigned = GS_TRUE;
	GSContainer *a = NULL;
	GSContainer *b = NULL;
	CHECK(gsPutContainerGeneral(storeA, NULL, &info, GS_FALSE, &a));
	CHECK(gsPutContainerGeneral(storeB, NULL, &info, GS_FALSE, &b));

	/* 1. commit */
	CHECK(gsSetAutoCommit(a, GS_FALSE));
	if (put(a, 1, "one") != 0 || put(a, 2, "two") != 0) return 1;
	if (sees(a, 1, "one") != 0 || sees(a, 2, "two") != 0) return 1;
	if (sees(b, 1, NULL) != 0 || sees(b, 2, NULL) != 0) return 1;
	CHECK(gsCommit(a));
	if (sees(b, 1, "one") != 0 || sees(b, 2, "two") != 0) return 1;

	/* 2. abort */
	if (put(a, 3, "three") != 0) return 1;
	CHECK(gsAbort(a));
	if (sees(a, 3, NULL) != 0 || sees(b, 3, NULL) != 0) return 1;

	/* 3. a lock held by A's transaction: B's put waits, then fails */
	if (put(a, 1, "locked") != 0) return 1;
	GSRow *row = NULL;
	GSBool exists;
	CHECK(gsCreateRowByContainer(b, &row));
	CHECK(gsSetRowFieldByInteger(row, 0, 1));
	CHECK(gsSetRowFieldByString(row, 1, "other"));
	GSResult result = gsPutRow(b, NULL, row, &exists);
	EXPECT(!GS_SUCCEEDED(result), "B's put of a row A holds was accepted");
	printf("lock-timeout %d\n", (int) gsGetErrorCode(b, 0));
	gsCloseRow(&row);
	CHECK(gsCommit(a));
	if (sees(b, 1, "locked") != 0) return 1;
	int32_t key = 2;
	CHECK(gsCreateRowByContainer(a, &row));
	CHECK(gsGetRowForUpdate(a, &key, row, &exists));
	EXPECT(exists, "row 2 not found for update");
	gsCloseRow(&row);
	CHECK(gsCreateRowByContainer(b, &row));
	CHECK(gsSetRowFieldByInteger(row, 0, 2));
	CHECK(gsSetRowFieldByString(row, 1, "other"));
	result = gsPutRow(b, NULL, row, &exists);
	EXPECT(!GS_SUCCEEDED(result), "B's put of a row A read for update was accepted");
	printf("for-update %d\n", (int) gsGetErrorCode(b, 0));
	gsCloseRow(&row);
	CHECK(gsCommit(a));

	/* 4. auto-commit again */
	CHECK(gsSetAutoCommit(a, GS_TRUE));
	if (put(a, 4, "four") != 0 || sees(b, 4, "four") != 0) return 1;

	if (composite(storeA) != 0) return 1;
	if (keyless(storeA) != 0) return 1;

	/* 7. a container cache keeps sessions */
	GSGridStore *storeC = storeOf(member, argv[2], "300", "4");
	EXPECT(storeC != NULL, "no GridStore C");
	for (int32_t id = 5; id <= 6; id++) {
		GSContainer *c = NULL;
		CHECK(gsPutContainerGeneral(storeC, NULL, &info, GS_FALSE, &c));
		CHECK(gsSetAutoCommit(c, GS_FALSE));
		if (put(c, id, "cached") != 0) return 1;
		CHECK(gsCommit(c));
		gsCloseContainer(&c, GS_FALSE);
	}
	gsCloseGridStore(&storeC, GS_FALSE);
	if (sees(b, 5, "cached") != 0 || sees(b, 6, "cached") != 0) return 1;

	gsCloseContainer(&a, GS_TRUE);
	gsCloseContainer(&b, GS_TRUE);
	gsCloseGridStore(&storeA, GS_TRUE);
	gsCloseGridStore(&storeB, GS_TRUE);
	return 0;
}
