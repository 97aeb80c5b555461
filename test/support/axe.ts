import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

/** axe-core's browser build, evaluated in the page (DevTools evaluation is not subject to the page's CSP). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Resolves once every finite animation (a dialog's fade, a drawer's slide) has ended; spinners run forever and are left out. */
const SETTLED = `Promise.all(document.getAnimations()
  .filter((animation) => animation.effect?.getComputedTiming().iterations !== Infinity)
  .map((animation) => animation.finished.catch(() => undefined))).then(() => 0)`;

export interface Violation {
  readonly id: string;
  readonly impact: string | null;
  readonly help: string;
  readonly nodes: readonly { readonly target: readonly unknown[]; readonly html?: string }[];
}

/** Every axe violation on the page as it is now, once its animations have ended. */
export async function axeViolations(page: Page): Promise<Violation[]> {
  // Colours measured half-way through a fade (a dialog opening) are not the page's.
  await page.evaluate(SETTLED);
  // Injected once per document: client-side navigations keep it.
  if (await page.evaluate("typeof window.axe === 'undefined'")) await page.evaluate(`${AXE_SOURCE}\n;0`);
  return page.evaluate<Violation[]>("axe.run(document, { resultTypes: ['violations'] }).then((result) => result.violations)");
}

/** The serious and critical ones. */
export const seriousOrCritical = (violations: readonly Violation[]): Violation[] =>
  violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');

/** Findings as lines a failed assertion prints: impact, rule, help and the first few elements. */
export const describeFindings = (url: string, found: readonly Violation[]): string =>
  found
    .map(
      (v) =>
        `${url}: ${v.impact ?? ''} ${v.id} (${v.help}) at ${v.nodes
          .map((n) => `${JSON.stringify(n.target)} ${(n.html ?? '').slice(0, 160)}`)
          .slice(0, 5)
          .join(',\n    ')}`,
    )
    .join('\n');
