// Fails when gen/ is not what `buf generate` makes from proto/ (someone edited one without the other).
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, statSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), "svc-gen-"));
try {
  const bin = join(root, "node_modules", ".bin");
  // From the root, so buf.gen.yaml's local plugins (scripts/protoc-gen-svc-docs.mjs) and their
  // node_modules resolve as in `npm run generate`; only the output goes to the scratch folder.
  execFileSync(join(bin, "buf"), ["generate", "--output", scratch], {
    cwd: root,
    env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
    stdio: "inherit",
  });
  const files = (dir) =>
    readdirSync(dir).flatMap((n) =>
      statSync(join(dir, n)).isDirectory() ? files(join(dir, n)) : [join(dir, n)],
    );
  const fresh = files(join(scratch, "gen", "src"))
    .map((f) => relative(join(scratch, "gen", "src"), f))
    .sort();
  const committed = files(join(root, "gen", "src"))
    .map((f) => relative(join(root, "gen", "src"), f))
    .sort();
  const stale = fresh.filter(
    (f) =>
      !committed.includes(f) ||
      readFileSync(join(scratch, "gen", "src", f), "utf8") !==
        readFileSync(join(root, "gen", "src", f), "utf8"),
  );
  const extra = committed.filter((f) => !fresh.includes(f));
  if (stale.length || extra.length) {
    console.error(
      `gen/ is out of date with proto/: run \`npm run generate\` and commit.\n  differs: ${[...stale, ...extra].join(", ")}`,
    );
    process.exit(1);
  }
  console.log(`gen/ matches proto/ (${fresh.length} files)`);
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
