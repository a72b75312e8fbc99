import { createHash } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { extname, join, relative, sep } from "node:path";
import { gzipSync } from "node:zlib";

/** One file of the built console, held in memory with its gzip and validator. */
export interface ConsoleFile {
  body: Buffer;
  gzip: Buffer | undefined;
  type: string;
  etag: string;
  /** Vite puts a content hash in every name under assets/: such a file never changes. */
  immutable: boolean;
}

const TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json",
  ".map": "application/json",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".woff2": "font/woff2",
  ".txt": "text/plain; charset=utf-8",
};
const COMPRESSIBLE = new Set([".html", ".js", ".mjs", ".css", ".json", ".map", ".svg", ".txt"]);

/**
 * Reads the whole built console (a few files, about 150 kB) once at start, keyed by their path
 * under the folder with forward slashes ("index.html", "assets/index-abc.js"). Undefined when
 * the folder holds no index.html: the console was not built.
 */
export async function loadConsoleFiles(dir: string): Promise<Map<string, ConsoleFile> | undefined> {
  let entries: string[];
  try {
    entries = await readdir(dir, { recursive: true });
  } catch {
    return undefined;
  }
  const files = new Map<string, ConsoleFile>();
  for (const entry of entries) {
    const path = join(dir, entry);
    let body: Buffer;
    try {
      body = await readFile(path);
    } catch {
      continue; // a folder
    }
    const key = relative(dir, path).split(sep).join("/");
    const ext = extname(key).toLowerCase();
    files.set(key, {
      body,
      gzip: COMPRESSIBLE.has(ext) && body.length > 1024 ? gzipSync(body, { level: 9 }) : undefined,
      type: TYPES[ext] ?? "application/octet-stream",
      etag: `"${createHash("sha256").update(body).digest("base64url").slice(0, 27)}"`,
      immutable: key.startsWith("assets/"),
    });
  }
  return files.has("index.html") ? files : undefined;
}
