/**
 * Prints what a kustomization renders to, as one multi-document YAML stream for
 * `kubectl apply -f -`:
 *
 *   npx tsx deploy/k8s/render/cli.ts deploy/k8s/overlays/production | kubectl apply --server-side -f -
 */
import { stringify } from "yaml";
import { renderKustomization } from "./kustomize.js";

const dir = process.argv[2];
if (!dir) {
  process.stderr.write("usage: tsx deploy/k8s/render/cli.ts <kustomization directory>\n");
  process.exit(2);
}
process.stdout.write(
  renderKustomization(dir)
    .map((o) => stringify(o))
    .join("---\n"),
);
