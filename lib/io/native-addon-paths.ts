// Where the project's N-API addons (lib/io/native, built by tools/build-native.mjs) are looked
// for: beside this file when run from source, or from dist/lib/io/ for a build.

import { fileURLToPath } from 'node:url';

/**
 * Candidate paths of addon `<name>.node`, in the order to try; empty from a bundle. `directory`
 * is the one of lib/io/ whose binding.gyp builds it.
 */
export function nativeAddonPaths(name: string, directory = 'native'): string[] {
  try {
    return [
      `./${directory}/build/Release/${name}.node`,
      `../../../lib/io/${directory}/build/Release/${name}.node`,
    ].map((relativePath) => fileURLToPath(new URL(relativePath, import.meta.url)));
  } catch {
    return []; // not loaded from a file (a bundle): there is no addon beside it
  }
}
