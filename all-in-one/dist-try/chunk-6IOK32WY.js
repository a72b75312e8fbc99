import { createRequire as __svcCreateRequire } from "node:module"; const require = __svcCreateRequire(import.meta.url);

// lib/src/audit/checkpoint-log.ts
var MEMORY_KEEP = 2e4;
function createMemoryCheckpointLog(keep = MEMORY_KEEP) {
  const kept = [];
  return {
    kind: "in-process",
    async append(c) {
      kept.push(structuredClone(c));
      if (kept.length > keep) kept.splice(0, kept.length - keep);
    },
    async latest(n) {
      return structuredClone(kept.slice(Math.max(0, kept.length - n)));
    },
    async close() {
    }
  };
}
function checkpointStreamOf(namespace = "svc") {
  return {
    stream: `${namespace.toUpperCase().replace(/-/g, "_")}_AUDIT_CHECKPOINTS`,
    subject: `${namespace}_audit.checkpoints`
  };
}

export {
  createMemoryCheckpointLog,
  checkpointStreamOf
};
//# sourceMappingURL=chunk-6IOK32WY.js.map
