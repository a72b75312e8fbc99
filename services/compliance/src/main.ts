import { runStandalone } from "@svc/lib/server";
import { botsOverNetwork } from "./clients/bots-over-network.js";
import { reportSourcesOverNetwork } from "./clients/report-sources-over-network.js";
import { createComplianceModule } from "./index.js";

await runStandalone("compliance", (platform) =>
  createComplianceModule(platform, {
    ...botsOverNetwork(platform.config, platform.log),
    ...reportSourcesOverNetwork(platform.config, platform.log),
  }),
);
