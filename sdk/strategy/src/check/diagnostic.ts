/** One problem in a strategy's source, at a place a person can open. Line and column from 1. */
export interface StrategyDiagnostic {
  file: string;
  line: number;
  column: number;
  message: string;
}

/** `file:line:column message`, as compilers print them, so editors and terminals link them. */
export function formatDiagnostic(d: StrategyDiagnostic): string {
  return `${d.file}:${d.line}:${d.column} ${d.message}`;
}

/** Most diagnostics one answer lists: past this a file is not worth reading error by error. */
export const MAX_DIAGNOSTICS = 50;

export function capped(all: StrategyDiagnostic[]): StrategyDiagnostic[] {
  if (all.length <= MAX_DIAGNOSTICS) return all;
  const last = all[MAX_DIAGNOSTICS - 1]!;
  return [
    ...all.slice(0, MAX_DIAGNOSTICS - 1),
    { ...last, message: `${all.length - MAX_DIAGNOSTICS + 1} more errors not listed` },
  ];
}
