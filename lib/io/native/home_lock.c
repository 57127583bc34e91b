/*
 * home_lock.node: flock(2), which Node lacks, for the lock on a node's home (lib/io/home-lock.ts,
 * its only caller). Built beside punch_hole.node by tools/build-native.mjs at npm install.
 *   lockExclusive(fd): flock(fd, LOCK_EX | LOCK_NB). True when this open file description now
 *     holds the lock, false when another one holds it (EWOULDBLOCK); any other failure throws an
 *     Error with .errno (number) and the strerror text. The lock goes when the descriptor is
 *     closed or the process dies, however it dies: that is why a stale lock needs no clean-up.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <node_api.h>

static napi_value throw_errno(napi_env env, const char *call, int error) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s (errno %d)", call, strerror(error), error);
  napi_value text, number, exception;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text);
  napi_create_error(env, NULL, text, &exception);
  napi_create_int32(env, error, &number);
  napi_set_named_property(env, exception, "errno", number);
  napi_throw(env, exception);
  return NULL;
}

static napi_value lock_exclusive(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int32_t fd;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_value_int32(env, argv[0], &fd) != napi_ok || fd < 0) {
    napi_throw_type_error(env, NULL, "expected a file descriptor");
    return NULL;
  }
  int result;
  do {
    result = flock(fd, LOCK_EX | LOCK_NB);
  } while (result != 0 && errno == EINTR);
  if (result != 0 && errno != EWOULDBLOCK) return throw_errno(env, "flock", errno);
  napi_value locked;
  napi_get_boolean(env, result == 0, &locked);
  return locked;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "lockExclusive", NAPI_AUTO_LENGTH, lock_exclusive, NULL, &fn);
  napi_set_named_property(env, exports, "lockExclusive", fn);
  return exports;
}
