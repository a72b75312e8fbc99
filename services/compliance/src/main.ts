import { runStandalone } from "@svc/lib/server";
import { createComplianceModule } from "./index.js";

await runStandalone("compliance", createComplianceModule);
