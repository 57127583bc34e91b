/*
 * malloc_tuning.node: glibc's mallopt(3), which Node lacks, for the node's process-wide malloc
 * settings (lib/io/malloc-tuning.ts, its only caller). Built beside punch_hole.node and
 * home_lock.node by tools/build-native.mjs at npm install.
 *   mmapThresholdSet(bytes): mallopt(M_MMAP_THRESHOLD, bytes). True when set; false where the C
 *     library is not glibc (nothing to set) or glibc refused the value. Setting it also turns off
 *     glibc's sliding threshold (see malloc-tuning.ts for why that matters).
 *   mappedBytes(): mallinfo2().hblkhd, the bytes malloc holds in chunks of their own mapping; -1
 *     where the C library is not glibc. For tests: it shows which way an allocation went.
 */
#include <stdbool.h>
#include <stdint.h>
#include <node_api.h>
#if defined(__GLIBC__)
#include <malloc.h>
#endif

static napi_value mmap_threshold_set(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  int64_t bytes;
  napi_get_cb_info(env, info, &argc, argv, NULL, NULL);
  if (argc < 1 || napi_get_value_int64(env, argv[0], &bytes) != napi_ok || bytes <= 0 ||
      bytes > INT32_MAX) {
    napi_throw_type_error(env, NULL, "expected a byte count from 1 to 2^31 - 1");
    return NULL;
  }
  bool set = false;
#if defined(__GLIBC__)
  set = mallopt(M_MMAP_THRESHOLD, (int)bytes) == 1;
#endif
  napi_value result;
  napi_get_boolean(env, set, &result);
  return result;
}

static napi_value mapped_bytes(napi_env env, napi_callback_info info) {
  (void)info;
  double bytes = -1;
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
  bytes = (double)mallinfo2().hblkhd;
#endif
  napi_value result;
  napi_create_double(env, bytes, &result);
  return result;
}

NAPI_MODULE_INIT() {
  napi_value fn;
  napi_create_function(env, "mmapThresholdSet", NAPI_AUTO_LENGTH, mmap_threshold_set, NULL, &fn);
  napi_set_named_property(env, exports, "mmapThresholdSet", fn);
  napi_create_function(env, "mappedBytes", NAPI_AUTO_LENGTH, mapped_bytes, NULL, &fn);
  napi_set_named_property(env, exports, "mappedBytes", fn);
  return exports;
}
