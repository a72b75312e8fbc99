import { runStandalone } from "@svc/lib/server";
import { createPromotionModule } from "./index.js";

await runStandalone("promotion", createPromotionModule);
