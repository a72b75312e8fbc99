import { describe, expect, it } from "vitest";
import { COMMAND_MODULES } from "./commands/index.js";
import { processIo } from "./io.js";
import { buildFullProgram, commandName } from "./program.js";
import { svcIn } from "./testing.js";

// svc loads only the module of the command it runs; these hold the table of names and summaries
// that stands in for the others to the modules themselves.
describe("svc's lazily loaded command tree", () => {
  it("svc --help, from the table of names and summaries, prints what the whole tree prints", async () => {
    let whole = "";
    const full = await buildFullProgram({ ...processIo(), out: (s) => void (whole += s) });
    full.outputHelp();
    const lazy = await svcIn("http://127.0.0.1:1", ["--help"]);
    expect(lazy.code).toBe(0);
    expect(lazy.stdout.replace(/\(default: "[^"]*"\)/, "")).toBe(
      whole.replace(/\(default: "[^"]*"\)/, ""),
    );
  });

  it("each module's table entry names its commands and their summaries", async () => {
    const full = await buildFullProgram(processIo());
    for (const m of COMMAND_MODULES)
      for (const [name, summary] of m.commands) {
        const cmd = full.commands.find((c) => c.name() === name);
        expect(cmd, name).toBeDefined();
        // A hidden command (an old name kept for scripts) has no summary in the table.
        if (summary) expect(cmd!.description(), name).toBe(summary);
      }
    const named = COMMAND_MODULES.flatMap((m) => m.commands.map(([n]) => n));
    expect(full.commands.map((c) => c.name()).sort()).toEqual([...named].sort());
  });

  it("finds the command past svc's own options, and the one `svc help` asks about", async () => {
    expect(commandName(["--url", "http://x", "-o", "yaml", "--json", "drills", "list"])).toBe(
      "drills",
    );
    expect(commandName(["help", "drills"])).toBe("drills");
    expect(commandName(["--help"])).toBeUndefined();
    const help = await svcIn("http://127.0.0.1:1", ["help", "drills"]);
    expect(help.stdout).toMatch(/^ {2}schedule +when the quarterly drill runs by itself$/m);
  });
});
