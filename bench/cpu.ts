import { existsSync, readdirSync, readFileSync } from 'node:fs';

/**
 * CPU time from Linux's `/proc`, in microseconds: one process's (the service side's), and each
 * PostgreSQL process's (backends, WAL writer, checkpointer). The sides of a bench take turns, so what
 * PostgreSQL spent during one side's run is that side's. Elsewhere than Linux: undefined.
 *
 * Read from each thread's `schedstat` (the scheduler's own count of time on a CPU, in nanoseconds)
 * rather than `stat`'s utime + stime, which are sampled at the timer tick: a PostgreSQL backend that
 * answers single reads runs a few dozen microseconds at a time between idle stretches, and the ticks
 * all but missed it (2 µs per read at 1 client, where the scheduler counts about 80 µs).
 */
const TICK_US = 10_000; // USER_HZ is 100 on every Linux this runs on

/** Whether this kernel keeps schedstat (otherwise every reading is ticks, so two readings never mix the two). */
const SCHEDSTAT = existsSync('/proc/self/schedstat');

/** CPU time of one process, its threads summed (Node's GC and libuv threads work too), or undefined when /proc cannot tell. */
export function processCpuMicros(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  if (!SCHEDSTAT) return tickMicros(pid);
  let threads: string[];
  try {
    threads = readdirSync(`/proc/${String(pid)}/task`);
  } catch {
    return undefined;
  }
  // A thread that ended since the directory was read counts nothing.
  return threads.reduce((total, thread) => total + (schedstatMicros(`/proc/${String(pid)}/task/${thread}/schedstat`) ?? 0), 0);
}

/** CPU time of every process named `postgres`, by pid, or undefined when /proc cannot tell. */
export function postgresCpuByProcess(): ReadonlyMap<number, number> | undefined {
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  const cpu = new Map<number, number>();
  for (const pid of pids) {
    if (statFields(Number(pid))?.[0] !== 'postgres') continue;
    // PostgreSQL's processes have one thread each.
    const micros = SCHEDSTAT ? schedstatMicros(`/proc/${pid}/schedstat`) : tickMicros(Number(pid));
    if (micros !== undefined) cpu.set(Number(pid), micros);
  }
  return cpu;
}

/**
 * What PostgreSQL's processes spent between two readings: a process that began between them counts
 * whole, one that ended between them is lost with its count (a sum over all would then go negative).
 */
export function postgresCpuBetween(start: ReadonlyMap<number, number>, end: ReadonlyMap<number, number>): number {
  let spent = 0;
  for (const [pid, micros] of end) spent += micros - (start.get(pid) ?? 0);
  return spent;
}

function schedstatMicros(file: string): number | undefined {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const nanos = Number(text.split(' ')[0]);
  return Number.isFinite(nanos) ? nanos / 1000 : undefined;
}

function tickMicros(pid: number): number | undefined {
  const fields = statFields(pid);
  return fields ? (Number(fields[12]) + Number(fields[13])) * TICK_US : undefined;
}

/** The fields of /proc/<pid>/stat after the pid, the command's name first (without its parentheses). */
function statFields(pid: number): string[] | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${String(pid)}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The name is in parentheses and may hold spaces: split after the last ')'.
  const open = stat.indexOf('(');
  const close = stat.lastIndexOf(')');
  if (open < 0 || close < open) return undefined;
  return [stat.slice(open + 1, close), ...stat.slice(close + 2).split(' ')];
}
