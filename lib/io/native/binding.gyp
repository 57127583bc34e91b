# Builds punch_hole.node (see punch_hole.c), home_lock.node (see home_lock.c) and
# malloc_tuning.node (see malloc_tuning.c). Run through
# tools/build-native.mjs, which finds node-gyp and the running Node's headers and never fails the
# install.
{
  "targets": [
    {
      "target_name": "punch_hole",
      "sources": ["punch_hole.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
    },
    {
      "target_name": "home_lock",
      "sources": ["home_lock.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
    },
    {
      "target_name": "malloc_tuning",
      "sources": ["malloc_tuning.c"],
      "defines": ["NAPI_VERSION=8"],
      "cflags": ["-Wall", "-Wextra", "-Werror=implicit-function-declaration"],
    },
  ],
}
