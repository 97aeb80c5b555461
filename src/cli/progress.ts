/**
 * Progress of long CLI work (`seed`, `projections rebuild`): on a terminal one bar redrawn in place,
 * otherwise (CI logs, files, pipes) a line every few seconds — each with how far, the rate and an
 * estimate of the time left.
 */

/** What a report says. */
export interface ProgressState {
  readonly label: string;
  /** Units done so far, and the total when it is known. */
  readonly done: number;
  readonly total: number | undefined;
  /** Units per second since the start. */
  readonly rate: number;
  /** Milliseconds since the start. */
  readonly elapsedMs: number;
  /** What a unit is, plural (`events`, `resources`). */
  readonly unit: string;
}

/** Digits with a comma before each group of three from the right. */
const grouped = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * `12,345`: a count as en-US writes it, rounded to a whole number. Written by hand because the first
 * Intl formatter of a process loads ICU's locale data, about 17 ms of every CLI's start (a rebuild's
 * included).
 */
export function wholeNumber(value: number | bigint): string {
  if (typeof value === 'bigint') return (value < 0n ? '-' : '') + grouped((value < 0n ? -value : value).toString());
  if (!Number.isFinite(value)) return Number.isNaN(value) ? 'NaN' : value > 0 ? '∞' : '-∞';
  return (value < 0 || Object.is(value, -0) ? '-' : '') + grouped(Math.round(Math.abs(value)).toFixed(0));
}

/** `42 s`, `3 min 05 s`, `1 h 02 min`. */
export function duration(ms: number): string {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${String(seconds % 60).padStart(2, '0')} s`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, '0')} min`;
}

/** The time left at the rate so far, or undefined while it cannot be told (no total, no rate yet). */
export function eta(state: Pick<ProgressState, 'done' | 'total' | 'rate'>): number | undefined {
  if (state.total === undefined || state.rate <= 0) return undefined;
  return (Math.max(0, state.total - state.done) / state.rate) * 1000;
}

/** `rebuild audit_log: 12,000/48,000 events (25%) · 4,000 events/s · ETA 9 s`. */
export function progressLine(state: ProgressState): string {
  const { label, done, total, rate, unit } = state;
  const amount =
    total === undefined
      ? `${wholeNumber(done)} ${unit}`
      : `${wholeNumber(done)}/${wholeNumber(total)} ${unit} (${Math.floor((total === 0 ? 1 : Math.min(1, done / total)) * 100)}%)`;
  const left = eta(state);
  const tail =
    done >= (total ?? Infinity)
      ? `done in ${duration(state.elapsedMs)}`
      : left === undefined
        ? `elapsed ${duration(state.elapsedMs)}`
        : `ETA ${duration(left)}`;
  return `${label}: ${amount} · ${wholeNumber(rate)} ${unit}/s · ${tail}`;
}

const BAR_WIDTH = 24;

/** The terminal form: a bar in front of the same words. */
export function progressBar(state: ProgressState): string {
  const fraction = state.total === undefined || state.total === 0 ? 0 : Math.min(1, state.done / state.total);
  const filled = Math.round(fraction * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${progressLine(state)}`;
}

/** Where and how a reporter writes. */
export interface ProgressOutput {
  /** Writes text as it is (no newline added). */
  readonly write: (text: string) => void;
  /** A terminal: redraw one bar in place instead of printing lines. */
  readonly tty: boolean;
  /** Least time between two reports (default 3,000 ms; a terminal redraws at most every 200 ms). */
  readonly intervalMs?: number;
  readonly now?: () => number;
}

/** Reports one piece of work: `update` as it goes, `finish` once at the end. */
export interface ProgressReporter {
  update(done: number, total?: number): void;
  finish(done?: number): void;
}

/** The output of this process: stdout, a bar when stdout is a terminal. */
export const stdoutProgress = (): ProgressOutput => ({ write: (text) => process.stdout.write(text), tty: process.stdout.isTTY });

/**
 * A reporter for `label`, counting `unit`s. Reports at most every interval, and always once at the
 * end (so short work prints one line, and logs always show the final count and time).
 */
export function createProgress(label: string, unit: string, output: ProgressOutput, total?: number): ProgressReporter {
  const now = output.now ?? Date.now;
  const started = now();
  const interval = output.tty ? Math.min(200, output.intervalMs ?? 200) : (output.intervalMs ?? 3000);
  let lastReport = started;
  let done = 0;
  let known = total;
  const state = (): ProgressState => {
    const elapsedMs = now() - started;
    return { label, done, total: known, unit, elapsedMs, rate: elapsedMs > 0 ? (done * 1000) / elapsedMs : 0 };
  };
  const report = (final: boolean): void => {
    if (output.tty) output.write(`\r\u001b[2K${progressBar(state())}${final ? '\n' : ''}`);
    else output.write(`${progressLine(state())}\n`);
  };
  return {
    update(value, newTotal) {
      done = value;
      if (newTotal !== undefined) known = newTotal;
      if (now() - lastReport < interval) return;
      lastReport = now();
      report(false);
    },
    finish(value) {
      if (value !== undefined) done = value;
      if (known !== undefined && done < known) known = done;
      report(true);
    },
  };
}
