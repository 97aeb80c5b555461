import { readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time from Linux's `/proc`, in microseconds: one process's (the service side's), and every
 * PostgreSQL process's summed (backends, WAL writer, checkpointer). The sides of a bench take turns,
 * so what PostgreSQL spent during one side's run is that side's. Elsewhere than Linux: undefined.
 */
const TICK_US = 10_000; // USER_HZ is 100 on every Linux this runs on

/** utime + stime of one process, or undefined when /proc cannot tell. */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  const fields = statFields(pid);
  return fields ? (Number(fields[12]) + Number(fields[13])) * TICK_US : undefined;
}

/** utime + stime of every process named `postgres`, or undefined when /proc cannot tell. */
export function postgresCpuMicros(): number | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  let total = 0;
  for (const pid of pids) {
    const fields = statFields(Number(pid));
    if (fields?.[0] === 'postgres') total += (Number(fields[12]) + Number(fields[13])) * TICK_US;
  }
  return total;
}

/** The fields of /proc/<pid>/stat after the pid, the command's name first (without its parentheses). */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The name is in parentheses and may hold spaces: split after the last ')'.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  return [stat.slice(open + 1, close), ...stat.slice(close + 2).split(' ')];
}
