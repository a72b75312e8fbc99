import { runStandalone } from "@svc/lib/server";
import { createIdentityModule } from "./index.js";

await runStandalone("identity", createIdentityModule);
