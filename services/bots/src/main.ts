import { runStandalone } from "@svc/lib/server";
import { createBotsModule } from "./index.js";

await runStandalone("bots", createBotsModule);
