/**
 * The sandbox's process limit: one process. A seccomp filter (classic BPF, handed to bubblewrap
 * with --seccomp) refuses every way of making a new process (fork, vfork, clone without
 * CLONE_THREAD, and clone3, which glibc then retries as clone), while node's own threads (clone
 * with CLONE_THREAD) start as before. It holds against a strategy that broke out of the strategy
 * realm into node's own: `child_process` fails with EPERM, a fork bomb goes nowhere.
 *
 * Why not RLIMIT_NPROC (prlimit --nproc): the kernel counts it per real user, does not apply it
 * to root's, and the sandbox's uid maps to the platform's own (root in its container), so it
 * would count the platform's threads or nothing. The filter needs no privilege and counts nothing.
 */

/** struct seccomp_data: the syscall number, the audit architecture, then the arguments. */
const NR = 0;
const ARCH = 4;
const ARG0_LOW = 16;

const SECCOMP_RET_KILL_PROCESS = 0x80000000;
const SECCOMP_RET_ERRNO = 0x00050000;
const SECCOMP_RET_ALLOW = 0x7fff0000;
const EPERM = 1;
const ENOSYS = 38;
const CLONE_THREAD = 0x00010000;

// Classic BPF opcodes (linux/filter.h).
const LD_W_ABS = 0x20;
const JEQ_K = 0x15;
const JGE_K = 0x35;
const JSET_K = 0x45;
const RET_K = 0x06;

interface Arch {
  audit: number;
  clone: number;
  clone3: number;
  /** Syscalls that always make a process (absent on arm64, where clone does it all). */
  forks: number[];
  /** Numbers at or past this are another ABI on the same architecture (x32 on x86-64). */
  otherAbiFrom?: number;
}

const ARCHES: Record<string, Arch> = {
  x64: { audit: 0xc000003e, clone: 56, clone3: 435, forks: [57, 58], otherAbiFrom: 0x40000000 },
  arm64: { audit: 0xc00000b7, clone: 220, clone3: 435, forks: [] },
};

type Insn = [code: number, jt: number, jf: number, k: number];

/** The filter for `arch` (node's process.arch), as the bytes of struct sock_filter[]. */
export function noNewProcessesFilter(arch: string = process.arch): Uint8Array {
  const a = ARCHES[arch];
  if (!a)
    throw new Error(
      `the strategy sandbox's process limit has no seccomp filter for ${arch} (only x64 and arm64)`,
    );
  const deny = (errno: number): Insn => [RET_K, 0, 0, SECCOMP_RET_ERRNO | errno];
  // Laid out so every jump goes forward to a return: the tail is [allow, EPERM, ENOSYS, kill].
  const body: ((at: number, end: Record<string, number>) => Insn)[] = [
    () => [LD_W_ABS, 0, 0, ARCH],
    (at, end) => [JEQ_K, 0, end.kill! - at - 1, a.audit],
    () => [LD_W_ABS, 0, 0, NR],
    ...(a.otherAbiFrom !== undefined
      ? [
          (at: number, end: Record<string, number>): Insn => [
            JGE_K,
            end.eperm! - at - 1,
            0,
            a.otherAbiFrom!,
          ],
        ]
      : []),
    (at, end) => [JEQ_K, end.enosys! - at - 1, 0, a.clone3],
    ...a.forks.map((nr) => (at: number, end: Record<string, number>): Insn => [
      JEQ_K,
      end.eperm! - at - 1,
      0,
      nr,
    ]),
    (at, end) => [JEQ_K, 0, end.allow! - at - 1, a.clone],
    () => [LD_W_ABS, 0, 0, ARG0_LOW],
    (at, end) => [JSET_K, end.allow! - at - 1, end.eperm! - at - 1, CLONE_THREAD],
  ];
  const end = {
    allow: body.length,
    eperm: body.length + 1,
    enosys: body.length + 2,
    kill: body.length + 3,
  };
  const program: Insn[] = [
    ...body.map((insn, at) => insn(at, end)),
    [RET_K, 0, 0, SECCOMP_RET_ALLOW],
    deny(EPERM),
    deny(ENOSYS),
    [RET_K, 0, 0, SECCOMP_RET_KILL_PROCESS],
  ];
  const out = new Uint8Array(program.length * 8);
  const view = new DataView(out.buffer);
  program.forEach(([code, jt, jf, k], i) => {
    if (jt > 255 || jf > 255) throw new Error("seccomp filter: a jump too far");
    view.setUint16(i * 8, code, true);
    view.setUint8(i * 8 + 2, jt);
    view.setUint8(i * 8 + 3, jf);
    view.setUint32(i * 8 + 4, k >>> 0, true);
  });
  return out;
}
