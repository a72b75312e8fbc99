// Prints the README's configuration table from the one settings table in lib/src/config.
import { SETTINGS } from "../lib/src/config/settings.js";

for (const [name, def] of Object.entries(SETTINGS)) {
  const d = def as { default?: string; doc: string };
  console.log(`| \`${name}\` | ${d.default !== undefined ? `\`${d.default}\`` : ""} | ${d.doc} |`);
}
