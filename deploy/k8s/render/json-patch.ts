/** One operation of a JSON Patch (RFC 6902): the subset overlays use. */
export interface PatchOp {
  op: "add" | "replace" | "remove";
  path: string;
  value?: unknown;
}

type Container = Record<string, unknown> | unknown[];

const unescape = (s: string) => s.replace(/~1/g, "/").replace(/~0/g, "~");

/**
 * Applies JSON Patch operations to a copy of `doc`. A path that does not exist for `replace`
 * or `remove`, or whose parent does not exist for `add`, is an error (as kustomize reports it),
 * never a silent no-op.
 *
 * @example
 * applyJsonPatch({ spec: { replicas: 2 } }, [{ op: "replace", path: "/spec/replicas", value: 3 }]);
 */
export function applyJsonPatch<T>(doc: T, ops: PatchOp[]): T {
  const out = structuredClone(doc) as unknown;
  for (const op of ops) {
    const keys = op.path.split("/").slice(1).map(unescape);
    const last = keys.pop();
    if (last === undefined)
      throw new Error(`JSON patch path "${op.path}" names the whole document`);
    let parent = out as Container;
    for (const k of keys) {
      const next = (parent as Record<string, unknown>)[k];
      if (typeof next !== "object" || next === null)
        throw new Error(`JSON patch ${op.op} ${op.path}: "${k}" does not exist`);
      parent = next as Container;
    }
    if (Array.isArray(parent)) {
      const i = last === "-" ? parent.length : Number(last);
      if (!Number.isInteger(i) || i < 0 || i > parent.length - (op.op === "add" ? 0 : 1))
        throw new Error(`JSON patch ${op.op} ${op.path}: no index ${last}`);
      if (op.op === "add") parent.splice(i, 0, op.value);
      else if (op.op === "replace") parent[i] = op.value;
      else parent.splice(i, 1);
      continue;
    }
    const has = Object.prototype.hasOwnProperty.call(parent, last);
    if (op.op !== "add" && !has)
      throw new Error(`JSON patch ${op.op} ${op.path}: "${last}" does not exist`);
    if (op.op === "remove") delete parent[last];
    else parent[last] = op.value;
  }
  return out as T;
}
