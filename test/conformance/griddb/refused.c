/*
 * The C API calls whose statements a store node refuses (refused.test.ts,
 * lib/server/griddb/griddb-statements-refused.ts): gsCreateTrigger and gsDropTrigger
 * (CREATE/DROP_TRIGGER 152/153), on a time series made by gsPutTimeSeries. After each refusal
 * the same handle still puts a row (the connection carries on).
 *
 *   refused <port> <cluster>
 *
 * Prints "<call> <GSResult>" for each call on stdout; any other difference prints on stderr and
 * exits 1.
 */
#include "conformance.h"

#define REFUSED(label, call) do { GSResult r_ = (call); \
	EXPECT(!GS_SUCCEEDED(r_), "%s succeeded", label); printf("%s %d\n", label, (int) r_); \
	Point p_ = { next++ * 1000, 1.5 }; GSBool exists_; \
	CHECK(gsPutRow(series, NULL, &p_, &exists_)); } while (0)

int main(int argc, char **argv) {
	if (argc != 3) {
		fprintf(stderr, "usage: refused <port> <cluster>\n");
		return 2;
	}
	GSGridStore *store = NULL;
	CHECK(connectAdmin(argv[1], argv[2], &store));
	GSTimeSeries *series = NULL;
	CHECK(gsPutTimeSeries(store, "RF_TS", GS_GET_STRUCT_BINDING(Point), NULL, GS_FALSE, &series));
	GSTimestamp next = 1;

	GSTriggerInfo trigger = GS_TRIGGER_INFO_INITIALIZER;
	trigger.name = "t1";
	trigger.type = GS_TRIGGER_REST;
	trigger.uri = "http://127.0.0.1:1/";
	trigger.eventTypeFlags = GS_TRIGGER_EVENT_PUT;
	REFUSED("gsCreateTrigger", gsCreateTrigger(series, &trigger));
	REFUSED("gsDropTrigger", gsDropTrigger(series, "t1"));

	gsCloseContainer(&series, GS_TRUE);
	gsCloseGridStore(&store, GS_TRUE);
	return 0;
}
