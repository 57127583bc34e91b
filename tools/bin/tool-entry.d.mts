// Types of tools/bin/tool-entry.mjs (plain JavaScript), for the TypeScript that imports it.

export declare const ROOT: string;
export declare const DIST: string;
export declare const BUILD_STAMP: string;
export declare const SOURCE_FOLDERS: readonly string[];
export declare function sourceHash(): string;
export declare function toolEntry(name: string):
  { built: true; path: string } | { built: false; path: string; reason: string };
export declare function runTool(name: string): Promise<void>;
