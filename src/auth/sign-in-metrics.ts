import type { NewEvent } from '../events/store/port.js';
import type { Metrics } from '../metrics.js';

/**
 * Reasons a method's answer hides, counted as the answer the caller got: a deactivated account's
 * right password answers as a wrong one (docs/decisions/0010-deactivated-sign-in.md), so a counter
 * that moved only then would tell a watcher the password was right. The audit log keeps the truth.
 */
const ANSWERED_AS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  service_account: { user_deactivated: 'invalid_credentials' },
};

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
      const given = event.type === 'SignInFailed' && typeof event.data.reason === 'string' ? event.data.reason : '';
      const reason = ANSWERED_AS[method]?.[given] ?? given;
      metrics.signIns.inc({ method, outcome: event.type === 'SignInSucceeded' ? 'succeeded' : 'failed', reason });
    }
  };
}
