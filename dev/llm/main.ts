import { startStandInLlm } from "./stand-in-llm.js";

// `npm run llm`: the deterministic stand-in model on LLM_STANDIN_PORT (default 8089).
const port = Number(process.env.LLM_STANDIN_PORT ?? 8089);
const llm = await startStandInLlm(port);
console.log(
  `stand-in model on ${llm.baseUrl}: set SVC_LLM_BASE_URL=${llm.baseUrl} SVC_LLM_MODEL=stand-in`,
);
const stop = () => void llm.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
