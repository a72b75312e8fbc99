// Worker threads do not inherit tsx from --import on every Node line: register it here.
import { register } from "tsx/esm/api";

register();
await import("./runner-worker.ts");
