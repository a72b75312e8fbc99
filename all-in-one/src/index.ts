export { startPlatform, type RunningPlatform } from "./start-platform.js";
export { openEmbeddedDatabase } from "./embedded-database.js";
