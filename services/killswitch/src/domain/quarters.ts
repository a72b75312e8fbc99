/** A calendar quarter in UTC: [start, end). */
export interface Quarter {
  /** 2026-Q4 */
  label: string;
  start: Date;
  end: Date;
}

export function quarterOf(at: Date): Quarter {
  const year = at.getUTCFullYear();
  const q = Math.floor(at.getUTCMonth() / 3);
  return quarter(year, q);
}

/** The quarter `n` quarters after `of` (n negative: before). */
export function quarterAfter(of: Quarter, n: number): Quarter {
  const index = of.start.getUTCFullYear() * 4 + of.start.getUTCMonth() / 3 + n;
  return quarter(Math.floor(index / 4), index % 4);
}

function quarter(year: number, q: number): Quarter {
  return {
    label: `${year}-Q${q + 1}`,
    start: new Date(Date.UTC(year, q * 3, 1)),
    end: new Date(Date.UTC(year, q * 3 + 3, 1)),
  };
}

/** When a quarter's scheduled drill starts. */
export interface DrillTime {
  monthOfQuarter: number;
  dayOfMonth: number;
  hourUtc: number;
  minuteUtc: number;
}

export function scheduledIn(q: Quarter, t: DrillTime): Date {
  return new Date(
    Date.UTC(
      q.start.getUTCFullYear(),
      q.start.getUTCMonth() + t.monthOfQuarter - 1,
      t.dayOfMonth,
      t.hourUtc,
      t.minuteUtc,
    ),
  );
}

/**
 * When the scheduled drill starts next, seen at `now`: this quarter's time while it is ahead and
 * the quarter has no finished drill yet, else the next quarter's.
 */
export function nextScheduled(now: Date, t: DrillTime, quarterCovered: boolean): Date {
  const current = quarterOf(now);
  const here = scheduledIn(current, t);
  if (!quarterCovered && here.getTime() >= now.getTime()) return here;
  if (!quarterCovered) return now;
  return scheduledIn(quarterAfter(current, 1), t);
}
