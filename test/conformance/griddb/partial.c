/*
 * Conformance program for store's GridDB protocol (test/conformance/griddb/partial.test.ts): real
 * partial execution of QUERY_TQL through GridDB's C client (GS_FETCH_PARTIAL_EXECUTION). The node
 * answers part by part with a PARTIAL_EXECUTION_STATE the client sends back for the next part, so
 * a result larger than what a connection may hold at once (store's GRIDDB_ROW_SET_BYTES_MAX,
 * 64 MiB) still comes whole and in order; the same query without partial execution is refused.
 *
 *   partial <port> <clusterName>
 *
 * Puts ROW_COUNT rows of about 4 KB into the collection "P01" (INTEGER key id, STRING s, LONG v)
 * and reads them back. Prints "whole <GSResult>" for the query without partial execution and
 * "parts <rows>" for the rows read with it. Exits 0 when everything is as expected, 1 on a
 * difference (saying which on stderr).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gridstore.h"
#include "conformance.h"

static GSGridStore *store = NULL;

#define ROW_COUNT 17000
#define BATCH_ROWS 500
#define TEXT_BYTES 4000

static const GSColumnInfo COLUMNS[] = {
	{ "id", GS_TYPE_INTEGER, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NOT_NULL },
	{ "s", GS_TYPE_STRING, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
	{ "v", GS_TYPE_LONG, GS_INDEX_FLAG_DEFAULT, GS_TYPE_OPTION_NULLABLE },
};

/* Row id's text: TEXT_BYTES letters, all 'a' + id % 26 but the first, 'A' + id / 1000 % 26. */
static void textOf(int32_t id, char *text) {
	memset(text, 'a' + id % 26, TEXT_BYTES);
	text[0] = (char) ('A' + id / 1000 % 26);
	text[TEXT_BYTES] = '\0';
}

/* Reads "SELECT * WHERE id >= 0" with partial execution on or off; `rows` gets the count read. */
static GSResult readAll(GSContainer *c, GSBool partial, int32_t *rows) {
	static char expected[TEXT_BYTES + 1];
	GSQuery *query = NULL;
	GSRowSet *rowSet = NULL;
	GSRow *row = NULL;
	GSResult result;
	*rows = 0;
	if (!GS_SUCCEEDED(result = gsQuery(c, "SELECT * WHERE id >= 0", &query))) return result;
	if (!GS_SUCCEEDED(result = gsSetFetchOption(query, GS_FETCH_PARTIAL_EXECUTION, &partial,
			GS_TYPE_BOOL))) return result;
	if (!GS_SUCCEEDED(result = gsFetch(query, GS_FALSE, &rowSet))) return result;
	if (!GS_SUCCEEDED(result = gsCreateRowByContainer(c, &row))) return result;
	while (gsHasNextRow(rowSet)) {
		int32_t id;
		const GSChar *s;
		int64_t v;
		if (!GS_SUCCEEDED(result = gsGetNextRow(rowSet, row))) return result;
		gsGetRowFieldAsInteger(row, 0, &id);
		gsGetRowFieldAsString(row, 1, &s);
		gsGetRowFieldAsLong(row, 2, &v);
		textOf(id, expected);
		if (id != *rows || v != (int64_t) id * 3 || strcmp(s, expected) != 0) {
			fprintf(stderr, "row %d: id %d, v %lld, s %.8s…\n", *rows, id, (long long) v, s);
			return -1;
		}
		(*rows)++;
	}
	gsCloseRow(&row);
	gsCloseRowSet(&rowSet);
	gsCloseQuery(&query);
	return GS_RESULT_OK;
}

int main(int argc, char **argv) {
	static char texts[BATCH_ROWS][TEXT_BYTES + 1];
	GSContainerInfo info = GS_CONTAINER_INFO_INITIALIZER;
	GSContainer *c = NULL;
	GSRow *rows[BATCH_ROWS];
	int32_t read = 0;
	if (argc != 3) {
		fprintf(stderr, "usage: partial <port> <clusterName>\n");
		return 2;
	}
	CHECK(connectAdmin(argv[1], argv[2], &store));
	info.name = "P01";
	info.type = GS_CONTAINER_COLLECTION;
	info.columnCount = sizeof(COLUMNS) / sizeof(COLUMNS[0]);
	info.columnInfoList = COLUMNS;
	info.rowKeyAssigned = GS_TRUE;
	gsDropContainer(store, "P01");
	CHECK(gsPutContainerGeneral(store, NULL, &info, GS_FALSE, &c));
	for (int i = 0; i < BATCH_ROWS; i++) CHECK(gsCreateRowByContainer(c, &rows[i]));
	for (int32_t first = 0; first < ROW_COUNT; first += BATCH_ROWS) {
		for (int i = 0; i < BATCH_ROWS; i++) {
			const int32_t id = first + i;
			textOf(id, texts[i]);
			CHECK(gsSetRowFieldByInteger(rows[i], 0, id));
			CHECK(gsSetRowFieldByString(rows[i], 1, texts[i]));
			CHECK(gsSetRowFieldByLong(rows[i], 2, (int64_t) id * 3));
		}
		CHECK(gsPutMultipleRows(c, (const void *const *) rows, BATCH_ROWS, NULL));
	}
	for (int i = 0; i < BATCH_ROWS; i++) gsCloseRow(&rows[i]);

	/* without partial execution: more than a connection may hold, refused */
	const GSResult whole = readAll(c, GS_FALSE, &read);
	EXPECT(!GS_SUCCEEDED(whole), "the whole result came (%d rows)", read);
	printf("whole %d\n", (int) whole);

	/* with it: every row, in order, part by part */
	const GSResult parts = readAll(c, GS_TRUE, &read);
	if (parts == -1) return 1;
	CHECK(parts);
	EXPECT(read == ROW_COUNT, "partial execution read %d rows of %d", read, ROW_COUNT);
	printf("parts %d\n", read);

	/* the connection goes on: a small partial execution comes in one part */
	CHECK(gsDropContainer(store, "P01"));
	gsCloseContainer(&c, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
