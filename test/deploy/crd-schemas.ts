/**
 * JSON schemas for the custom resources of other projects that the manifests use (Istio's
 * PeerAuthentication and AuthorizationPolicy, CloudNativePG's Cluster): the fields we set,
 * transcribed from those projects' CRD references (security.istio.io/v1, postgresql.cnpg.io/v1)
 * with their types and enums; unknown fields are refused so a typo fails. Partial by design:
 * the real CRDs are not installable here (no registry but npm and Debian is reached, and
 * `@kubernetes-models/istio` is not among the installed packages). Our own CRDs are validated
 * against their own openAPIV3Schema instead.
 */
type Schema = Record<string, unknown>;

const obj = (properties: Record<string, Schema>, required: string[] = []): Schema => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});
const str = { type: "string" };
const strings = { type: "array", items: str };
const labels = { type: "object", additionalProperties: str };
const meta = {
  type: "object",
  properties: { name: str, namespace: str, labels, annotations: labels },
  required: ["name"],
  additionalProperties: false,
};
const resource = (apiVersion: string, kind: string, spec: Schema): Schema =>
  obj({ apiVersion: { const: apiVersion }, kind: { const: kind }, metadata: meta, spec }, [
    "apiVersion",
    "kind",
    "metadata",
    "spec",
  ]);

// Istio's WorkloadSelector has matchLabels only (no matchExpressions).
const workloadSelector = obj({ matchLabels: labels }, ["matchLabels"]);
const mtlsMode = obj({ mode: { enum: ["UNSET", "DISABLE", "PERMISSIVE", "STRICT"] } });

const source = obj({
  principals: strings,
  notPrincipals: strings,
  requestPrincipals: strings,
  notRequestPrincipals: strings,
  namespaces: strings,
  notNamespaces: strings,
  ipBlocks: strings,
  notIpBlocks: strings,
  remoteIpBlocks: strings,
  notRemoteIpBlocks: strings,
});
const operation = obj({
  hosts: strings,
  notHosts: strings,
  ports: { type: "array", items: { type: "string", pattern: "^[0-9]+$" } },
  notPorts: strings,
  methods: strings,
  notMethods: strings,
  paths: strings,
  notPaths: strings,
});

export const CRD_SCHEMAS: Record<string, Schema> = {
  "security.istio.io/v1 PeerAuthentication": resource(
    "security.istio.io/v1",
    "PeerAuthentication",
    obj({
      selector: workloadSelector,
      mtls: mtlsMode,
      portLevelMtls: {
        type: "object",
        propertyNames: { pattern: "^[1-9][0-9]*$" },
        additionalProperties: mtlsMode,
      },
    }),
  ),
  "security.istio.io/v1 AuthorizationPolicy": resource(
    "security.istio.io/v1",
    "AuthorizationPolicy",
    obj({
      selector: workloadSelector,
      action: { enum: ["ALLOW", "DENY", "AUDIT", "CUSTOM"] },
      rules: {
        type: "array",
        items: obj({
          from: { type: "array", items: obj({ source }, ["source"]) },
          to: { type: "array", items: obj({ operation }, ["operation"]) },
          when: {
            type: "array",
            items: obj({ key: str, values: strings, notValues: strings }, ["key"]),
          },
        }),
      },
    }),
  ),
  "postgresql.cnpg.io/v1 Cluster": resource(
    "postgresql.cnpg.io/v1",
    "Cluster",
    obj(
      {
        instances: { type: "integer", minimum: 1 },
        imageName: str,
        primaryUpdateStrategy: { enum: ["unsupervised", "supervised"] },
        enablePDB: { type: "boolean" },
        postgresql: obj({ parameters: labels }),
        bootstrap: obj({
          initdb: obj({
            database: str,
            owner: str,
            secret: obj({ name: str }, ["name"]),
            postInitApplicationSQL: strings,
            postInitSQL: strings,
          }),
        }),
        managed: obj({
          roles: {
            type: "array",
            items: obj(
              {
                name: str,
                ensure: { enum: ["present", "absent"] },
                login: { type: "boolean" },
                inherit: { type: "boolean" },
                connectionLimit: { type: "integer", minimum: -1 },
                comment: str,
                passwordSecret: obj({ name: str }, ["name"]),
              },
              ["name"],
            ),
          },
        }),
        storage: obj({ size: str, storageClass: str }),
        resources: obj({ requests: labels, limits: labels }),
        affinity: obj({
          enablePodAntiAffinity: { type: "boolean" },
          topologyKey: str,
          podAntiAffinityType: { enum: ["preferred", "required"] },
        }),
        monitoring: obj({ enablePodMonitor: { type: "boolean" } }),
      },
      ["instances"],
    ),
  ),
};
