export { startPlatform, type RunningPlatform } from "./start-platform.js";
