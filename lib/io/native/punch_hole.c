/*
 * punch_hole.node: the two calls Node lacks for sparse data files (DESIGN.md 3.4), built by
 * tools/build-native.mjs at npm install. Linux only. lib/io/punch-hole.ts is the only caller.
 *   punchHole(fd, offsetBytes, lengthBytes): fallocate(PUNCH_HOLE | KEEP_SIZE); throws an Error
 *     with .errno (number) and the strerror text; .code is 'EOPNOTSUPP' when the file system
 *     cannot punch holes.
 *   allocatedBytes(fd): st_blocks * 512 from fstat.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <node_api.h>

static napi_value throw_errno(napi_env env, const char *call, int error) {
  char message[160];
  snprintf(message, sizeof message, "%s: %s (errno %d)", call, strerror(error), error);
  napi_value text, code = NULL, number, exception;
  napi_create_string_utf8(env, message, NAPI_AUTO_LENGTH, &text);
  if (error == EOPNOTSUPP) napi_create_string_utf8(env, "EOPNOTSUPP", NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, text, &exception);
  napi_create_int32(env, error, &number);
  napi_set_named_property(env, exception, "errno", number);
  napi_throw(env, exception);
  return NULL;
}

static int get_args(napi_env env, napi_callback_info info, size_t count, int64_t *values) {
  size_t argc = 3;
  napi_value argv[3];
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  for (size_t i = 0; i < count; i++) {
    if (i >= argc || napi_get_value_int64(env, argv[i], &values[i]) != napi_ok || values[i] < 0) {
      napi_throw_type_error(env, NULL, "expected non-negative integer arguments");
      return 0;
    }
  }
  return 1;
}

static napi_value punch_hole(napi_env env, napi_callback_info info) {
  int64_t args[3]; /* fd, offsetBytes, lengthBytes */
  if (!get_args(env, info, 3, args)) return NULL;
  int result;
  do {
    result = fallocate((int)args[0], FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, args[1], args[2]);
  } while (result != 0 && errno == EINTR);
  if (result != 0) return throw_errno(env, "fallocate", errno);
  return NULL;
}

static napi_value allocated_bytes(napi_env env, napi_callback_info info) {
  int64_t fd;
  if (!get_args(env, info, 1, &fd)) return NULL;
  struct stat st;
  if (fstat((int)fd, &st) != 0) return throw_errno(env, "fstat", errno);
  napi_value result;
  napi_create_int64(env, (int64_t)st.st_blocks * 512, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "punchHole", NAPI_AUTO_LENGTH, punch_hole, NULL, &fn);
  napi_set_named_property(env, exports, "punchHole", fn);
  napi_create_function(env, "allocatedBytes", NAPI_AUTO_LENGTH, allocated_bytes, NULL, &fn);
  napi_set_named_property(env, exports, "allocatedBytes", fn);
  return exports;
}
