import { runStandalone } from "@svc/lib/server";
import { botsOverNetwork } from "./clients/bots-over-network.js";
import { createKillSwitchModule } from "./index.js";

await runStandalone("killswitch", (platform) =>
  createKillSwitchModule(platform, botsOverNetwork(platform.config, platform.log)),
);
