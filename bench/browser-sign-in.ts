import { createDb } from '@acme/db';
import { launchBrowser } from '../e2e/browser.ts';
import { createUser } from '../e2e/fixtures.ts';
import { signInWithPassword } from '../e2e/journeys.ts';
import { LOOPBACK_TEST_LIMITS, startSystem } from '../scripts/system.ts';

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? NaN;
}

/** Must match LANDING_MARK in apps/account/src/constants.ts (the app sets it on the landing page). */
const LANDING_MARK = 'account:landing';

/**
 * The whole browser sign-in (email → password → consent → callback → landing) in Chromium on
 * loopback: a fresh browser context per run, timed from the first navigation to the landing page's
 * `performance.mark` (wall clock of the mark, so no polling delay is counted).
 */
export async function benchBrowserSignIn(opts: { runs: number }) {
  const db = await createDb();
  const system = await startSystem({
    db,
    portOffset: 20_000,
    logLevel: 'silent',
    extraEnv: LOOPBACK_TEST_LIMITS,
  });
  const browser = await launchBrowser();
  const timings: number[] = [];
  try {
    const user = await createUser(system.urls);
    // One warm-up run: first loads compile the app's chunks in the browser cache of nobody.
    for (let run = 0; run <= opts.runs; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const started = Date.now();
      await signInWithPassword(page, system.urls, user);
      const landedAt = await page.evaluate((name) => {
        const mark = performance.getEntriesByName(name)[0];
        return mark ? performance.timeOrigin + mark.startTime : null;
      }, LANDING_MARK);
      if (landedAt === null) throw new Error(`the landing page set no ${LANDING_MARK} mark`);
      const elapsed = landedAt - started;
      if (run > 0) timings.push(Math.round(elapsed));
      await context.close();
    }
  } finally {
    await browser.close();
    await system.close();
    await db.close();
  }
  const sorted = [...timings].sort((a, b) => a - b);
  return {
    runs: timings.length,
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    minMs: sorted[0],
    maxMs: sorted.at(-1),
    timingsMs: timings,
  };
}
