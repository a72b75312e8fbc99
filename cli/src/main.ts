#!/usr/bin/env -S node --import tsx
// svc: the operator command, a client of the public API. `svc --help` lists the commands;
// docs/cli.md explains each with an example.
import { processIo } from "./io.js";
import { run } from "./program.js";

process.exitCode = await run(process.argv.slice(2), processIo());
