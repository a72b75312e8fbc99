import { originalPositionFor, TraceMap } from "@jridgewell/trace-mapping";

/** A frame of the bundle, as the sandbox's runtime leaves it (no host path): strategy.js:L:C. */
const FRAME = /\bstrategy\.js:(\d+):(\d+)/g;

/**
 * A strategy's stack with each frame of its bundle mapped back to the uploaded file, line and
 * column (the bundle's source map, kept with the version): `strategy.ts:12:11` rather than a
 * line of the bundle, which inlines the SDK before the strategy's own code. A frame the map does
 * not cover, or a stack without a map (a bundle stored before maps were kept), stays as it was.
 */
export function mapStrategyStack(stack: string, sourceMap: string | undefined): string {
  if (!sourceMap) return stack;
  let map: TraceMap;
  try {
    map = new TraceMap(sourceMap);
  } catch {
    return stack;
  }
  return stack.replace(FRAME, (frame, line: string, column: string) => {
    // V8's columns count from 1, the map's from 0.
    const at = originalPositionFor(map, { line: Number(line), column: Number(column) - 1 });
    if (at.source === null || at.line === null) return frame;
    return `${sourceName(at.source)}:${at.line}:${at.column + 1}`;
  });
}

/** The file as its author named it: esbuild writes the strategy's own as `strategy:/<path>`. */
function sourceName(source: string): string {
  const own = /^strategy:\/(.*)$/.exec(source);
  if (own) return own[1]!;
  // The SDK's dependency, read from disk: its package path, never where this host keeps it.
  const dependency = /node_modules\/(.*)$/.exec(source);
  return dependency ? dependency[1]! : source.replace(/^.*\//, "");
}
