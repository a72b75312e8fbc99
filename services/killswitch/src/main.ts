import { runStandalone } from "@svc/lib/server";
import { createKillSwitchModule } from "./index.js";

await runStandalone("killswitch", createKillSwitchModule);
