import { readdirSync, readFileSync } from "node:fs";

/** One process of a tree as /proc shows it: resident and peak memory, CPU used so far. */
export interface ProcessSample {
  pid: number;
  command: string;
  rssKib: number;
  peakRssKib: number;
  cpuMs: number;
  /** CPU of its main thread alone: a start's critical path, steadier than wall time under load. */
  mainThreadCpuMs: number;
}

// Linux's USER_HZ: /proc/<pid>/stat counts CPU time in hundredths of a second.
const TICK_MS = 10;

function read(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  const stat = read(`/proc/${pid}/stat`);
  // The command name may hold spaces and parentheses: fields are counted after the last ")".
  return stat ? Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) : undefined;
}

/** `root` and every process below it, with what each holds now. */
export function sampleTree(root: number): ProcessSample[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync("/proc")) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    const parent = parentOf(pid);
    if (parent !== undefined) parents.set(pid, parent);
  }
  const inTree = (pid: number): boolean => {
    for (let p: number | undefined = pid; p !== undefined && p > 1; p = parents.get(p))
      if (p === root) return true;
    return false;
  };
  const samples: ProcessSample[] = [];
  for (const pid of parents.keys()) {
    if (!inTree(pid)) continue;
    const status = read(`/proc/${pid}/status`);
    const stat = read(`/proc/${pid}/stat`);
    if (!status || !stat) continue;
    const kib = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    // utime, stime, cutime, cstime: fields 14-17 of stat, 12-15 after the command.
    const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
    // The main thread's task has the process's id; utime and stime, without the children's.
    const main = read(`/proc/${pid}/task/${pid}/stat`);
    const mainFields = main?.slice(main.lastIndexOf(")") + 2).split(" ");
    const mainTicks = mainFields ? Number(mainFields[11]) + Number(mainFields[12]) : 0;
    samples.push({
      pid,
      command: (read(`/proc/${pid}/cmdline`) ?? "").split("\0").join(" ").trim().slice(0, 120),
      rssKib: kib("VmRSS"),
      peakRssKib: kib("VmHWM"),
      cpuMs: ticks * TICK_MS,
      mainThreadCpuMs: mainTicks * TICK_MS,
    });
  }
  return samples;
}

/** The platform's own process: the largest in the tree (the wrappers are small beside it). */
export function platformProcess(samples: ProcessSample[]): ProcessSample | undefined {
  return [...samples].sort((a, b) => b.rssKib - a.rssKib)[0];
}
