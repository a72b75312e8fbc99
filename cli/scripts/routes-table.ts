// Prints the route -> command table of docs/cli.md from the proto descriptors and the command
// tree (route-coverage.test.ts holds the page to it): npx tsx cli/scripts/routes-table.ts
import { processIo } from "../src/io.js";
import { buildFullProgram } from "../src/program.js";
import { apiRoutes } from "../src/routes/api-routes.js";
import { declaredRoutes } from "../src/routes/declare.js";
import { WITHOUT_COMMAND } from "../src/routes/without-command.js";

const declared = declaredRoutes(await buildFullProgram(processIo()));
const lines = ["| route | command |", "| --- | --- |"];
for (const { route } of await apiRoutes()) {
  const first = declared.find((d) => d.routes.includes(route))?.command;
  lines.push(
    first
      ? `| \`${route}\` | \`${first}\` |`
      : `| \`${route}\` | (none: ${WITHOUT_COMMAND[route]}) |`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
