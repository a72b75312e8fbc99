import * as k8s from "@kubernetes/client-node";

type AttributeMap = Array<{ name: string; baseName: string; type: string }>;
type Model = { getAttributeTypeMap(): AttributeMap };

const model = (type: string): Model | undefined =>
  (k8s as unknown as Record<string, Model | undefined>)[type];

/**
 * The fields of `value` that the Kubernetes API type `type` (the client library's model, e.g.
 * `V1Deployment`) does not have, as paths: what `kubectl apply --validate=strict` refuses and
 * the schema validation of kubernetes-models lets pass (its schemas allow unknown fields), so
 * a misspelt `readinesProbe` is caught.
 *
 * @example
 * unknownFields(deployment, "V1Deployment"); // ["spec.template.spec.containers[0].readinesProbe"]
 */
export function unknownFields(value: unknown, type: string, path = ""): string[] {
  if (value === null || value === undefined) return [];
  const list = /^Array<(.+)>$/.exec(type);
  if (list)
    return Array.isArray(value)
      ? value.flatMap((v, i) => unknownFields(v, list[1]!, `${path}[${i}]`))
      : [];
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map && typeof value === "object")
    return Object.entries(value).flatMap(([k, v]) => unknownFields(v, map[1]!, `${path}.${k}`));
  const m = model(type);
  if (!m || typeof value !== "object" || typeof m.getAttributeTypeMap !== "function") return [];
  const attributes = new Map(m.getAttributeTypeMap().map((a) => [a.baseName, a.type]));
  return Object.entries(value).flatMap(([k, v]) => {
    const at = path ? `${path}.${k}` : k;
    const t = attributes.get(k);
    return t === undefined ? [at] : unknownFields(v, t, at);
  });
}
