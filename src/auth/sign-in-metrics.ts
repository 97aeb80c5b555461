import { AppError } from '../errors.js';
import type { NewEvent } from '../events/store/port.js';
import type { Metrics } from '../metrics.js';

/**
 * Counts sign-ins from the facts every sign-in flow records (`SignInSucceeded`, `SignInFailed` in
 * `signin-<day>`), as they are appended: service accounts, single sign-on, guest and Backstage all
 * end there, so one observer covers them and no flow needs to know about metrics. Method and reason
 * are closed sets from the code, never the identifier.
 */
export function signInCounter(metrics: Pick<Metrics, 'signIns'>): (events: readonly NewEvent[]) => void {
  return (events) => {
    for (const event of events) {
      if (event.type !== 'SignInSucceeded' && event.type !== 'SignInFailed') continue;
      const method = typeof event.data.method === 'string' ? event.data.method : 'unknown';
      const reason = event.type === 'SignInFailed' && typeof event.data.reason === 'string' ? event.data.reason : '';
      metrics.signIns.inc({ method, outcome: event.type === 'SignInSucceeded' ? 'succeeded' : 'failed', reason });
    }
  };
}

/**
 * The sign-in limiter with its refusals counted: `check` (sync or async) is watched for a
 * RATE_LIMITED refusal; every other member is the limiter's own. A wrapper rather than a change to
 * the limiter, so the limiter's implementation can change under it.
 */
export function countingRefusals<L extends object>(limiter: L, metrics: Pick<Metrics, 'rateLimitRefusals'>, name = 'sign_in'): L {
  const refused = (error: unknown): never => {
    if (error instanceof AppError && error.code === 'RATE_LIMITED') metrics.rateLimitRefusals.inc({ limiter: name });
    throw error;
  };
  return new Proxy(limiter, {
    get(target, property, receiver) {
      const value: unknown = Reflect.get(target, property, receiver);
      if (property !== 'check' || typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        try {
          const result: unknown = Reflect.apply(value, target, args);
          return result instanceof Promise ? result.catch(refused) : result;
        } catch (error) {
          return refused(error);
        }
      };
    },
  });
}
