import { createDb } from '@acme/db';
import { launchBrowser } from '../e2e/browser.ts';
import { createUser } from '../e2e/fixtures.ts';
import { enterCredentials, openLogin } from '../e2e/journeys.ts';
import { LOOPBACK_TEST_LIMITS, startSystem } from '../scripts/system.ts';

function percentile(sorted: number[], p: number): number {
  const index = Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1);
  return sorted[Math.max(0, index)] ?? NaN;
}

/** Must match LANDING_MARK in apps/account/src/constants.ts (the app sets it on the landing page). */
const LANDING_MARK = 'account:landing';

/**
 * The whole browser sign-in (email → password → consent → callback → landing) in Chromium on
 * loopback: a fresh browser context per run, timed to the landing page's `performance.mark` (wall
 * clock of the mark, so no polling delay is counted) from two starts: the Email step on screen
 * (`emailToLanding`, the goal's measure: what the user waits for once they start typing) and the
 * first navigation to the application's front door (`frontDoorToLanding`, which adds the redirect to
 * the authorization server and the login page's load). Both include the browser driver's typing
 * and clicking.
 */
export async function benchBrowserSignIn(opts: { runs: number }) {
  const db = await createDb();
  const system = await startSystem({
    db,
    portOffset: Number(process.env.BENCH_PORT_OFFSET ?? 20_000),
    logLevel: 'silent',
    extraEnv: LOOPBACK_TEST_LIMITS,
  });
  const browser = await launchBrowser();
  const timings: number[] = [];
  const fromFrontDoor: number[] = [];
  try {
    const user = await createUser(system.urls);
    // One warm-up run: first loads compile the app's chunks in the browser cache of nobody.
    for (let run = 0; run <= opts.runs; run++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      const started = Date.now();
      await openLogin(page, system.urls);
      await page.getByLabel('Email').waitFor();
      const emailShown = Date.now();
      await enterCredentials(page, system.urls, user);
      const landedAt = await page.evaluate((name) => {
        const mark = performance.getEntriesByName(name)[0];
        return mark ? performance.timeOrigin + mark.startTime : null;
      }, LANDING_MARK);
      if (landedAt === null) throw new Error(`the landing page set no ${LANDING_MARK} mark`);
      if (run > 0) {
        timings.push(Math.round(landedAt - emailShown));
        fromFrontDoor.push(Math.round(landedAt - started));
      }
      await context.close();
    }
  } finally {
    await browser.close();
    await system.close();
    await db.close();
  }
  const sorted = [...timings].sort((a, b) => a - b);
  const sortedFull = [...fromFrontDoor].sort((a, b) => a - b);
  return {
    runs: timings.length,
    measure:
      'emailToLanding: Email step on screen → landing mark; frontDoorToLanding: first navigation → landing mark',
    p50Ms: percentile(sorted, 50),
    p95Ms: percentile(sorted, 95),
    minMs: sorted[0],
    maxMs: sorted.at(-1),
    timingsMs: timings,
    frontDoorToLanding: {
      p50Ms: percentile(sortedFull, 50),
      p95Ms: percentile(sortedFull, 95),
      timingsMs: fromFrontDoor,
    },
  };
}
