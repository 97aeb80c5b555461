/**
 * Runs `job(0)` … `job(count - 1)` with at most `concurrency` in flight. The first failure stops
 * new jobs from starting; the pool waits for those already running, then rejects with that failure.
 */
export async function runPool(count: number, concurrency: number, job: (index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (failure === undefined && next < count) {
      const index = next++;
      try {
        await job(index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(concurrency, count)) }, worker));
  if (failure !== undefined) throw failure.error;
}
