# Builds double_text.node (see double_text.cc), apart from the C addons of ../binding.gyp so that a
# machine without a C++ compiler still builds those. Run through tools/build-native.mjs.
{
  "targets": [
    {
      "target_name": "double_text",
      "sources": ["double_text.cc"],
      "defines": ["NAPI_VERSION=8"],
      "cflags_cc": ["-std=c++17", "-O2", "-Wall", "-Wextra"],
    },
  ],
}
