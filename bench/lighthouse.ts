import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import lighthouse from 'lighthouse';
import { freePort } from '@acme/test-kit/free-port';
import desktopConfig from 'lighthouse/core/config/desktop-config.js';
import { createDb } from '@acme/db';
import { medianOf } from './median.ts';
import { onEveryCore } from './load/child.ts';
import { CHROMIUM_FLAGS } from '../e2e/browser.ts';
import { LOOPBACK_TEST_LIMITS, startSystem } from '../scripts/system.ts';

// The login route under Lighthouse (the version pinned at the root, with Debian's Chromium, as the
// journeys use it): the mobile preset (simulated slow 4G, 4× slower CPU) and the desktop preset,
// `runs` runs each, interleaved, on a system this workload starts on its own ports. Each run is a
// fresh browser profile, so nothing is cached and no session or token is carried over: what a
// person opening the sign-in page for the first time gets.
//
// BENCH_LIGHTHOUSE_REPORTS=<dir> keeps each run's full JSON report there (`<preset>-<run>.json`), to
// read where the time goes: the LCP element and its breakdown, redirects, network requests,
// render-blocking resources, main-thread work, long tasks, unused JavaScript.
const REPORTS_DIR = process.env.BENCH_LIGHTHOUSE_REPORTS || undefined;

/** The goals the medians are printed beside. */
const LIGHTHOUSE_GOALS = {
  mobile: { performance: 95, lcpMs: 2000, tbtMs: 150, cls: 0 },
  desktop: { performance: 98 },
} as const;

type Preset = 'mobile' | 'desktop';

interface LighthouseRun {
  performance: number;
  fcpMs: number;
  lcpMs: number;
  tbtMs: number;
  cls: number;
  speedIndexMs: number;
  transferKiB: number;
  redirects: number;
  finalUrl: string;
}

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Debian's Chromium with a fresh profile and its DevTools port, which Lighthouse drives. */
async function launchChromium(): Promise<{ port: number; close: () => Promise<void> }> {
  const port = await freePort();
  const profile = await mkdtemp(join(tmpdir(), 'bench-lighthouse-'));
  // Not on the server core the bench pins itself to (a child inherits that): there the browser's
  // processes and the servers shared one core, and Lighthouse's simulation multiplies the main-thread
  // time it observes, waits for that core included, by four. On every core, as when Lighthouse is run
  // by hand against `npm start`.
  const [command, args] = onEveryCore(CHROMIUM, [
    '--headless=new',
    ...CHROMIUM_FLAGS,
    '--no-default-browser-check',
    `--remote-debugging-port=${port}`,
    `--user-data-dir=${profile}`,
    'about:blank',
  ]);
  const child = spawn(command, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const close = async () => {
    child.kill('SIGKILL');
    await exited;
    await rm(profile, { recursive: true, force: true });
  };
  for (let tries = 0; ; tries++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/json/version`)).ok) return { port, close };
    } catch {
      // not listening yet
    }
    if (tries > 150) {
      await close();
      throw new Error('Chromium did not open its DevTools port');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

async function runOnce(url: string, preset: Preset, reportName?: string): Promise<LighthouseRun> {
  const chrome = await launchChromium();
  try {
    const result = await lighthouse(
      url,
      { port: chrome.port, output: 'json', logLevel: 'error', onlyCategories: ['performance'] },
      preset === 'desktop' ? desktopConfig : undefined,
    );
    if (!result) throw new Error('Lighthouse returned no result');
    const { lhr } = result;
    if (REPORTS_DIR && reportName) {
      await mkdir(REPORTS_DIR, { recursive: true });
      await writeFile(join(REPORTS_DIR, `${reportName}.json`), JSON.stringify(lhr, null, 1));
    }
    if (lhr.runtimeError) throw new Error(`Lighthouse: ${lhr.runtimeError.message}`);
    const value = (id: string) => lhr.audits[id]?.numericValue ?? Number.NaN;
    const redirects = lhr.audits.redirects?.details;
    return {
      performance: Math.round((lhr.categories.performance?.score ?? 0) * 100),
      fcpMs: Math.round(value('first-contentful-paint')),
      lcpMs: Math.round(value('largest-contentful-paint')),
      tbtMs: Math.round(value('total-blocking-time')),
      cls: Math.round(value('cumulative-layout-shift') * 1000) / 1000,
      speedIndexMs: Math.round(value('speed-index')),
      transferKiB: Math.round(value('total-byte-weight') / 102.4) / 10,
      redirects: redirects && 'items' in redirects ? Math.max(0, redirects.items.length - 1) : 0,
      finalUrl: lhr.finalDisplayedUrl,
    };
  } finally {
    await chrome.close();
  }
}

/** Whether the medians meet the goals of `LIGHTHOUSE_GOALS`. */
function meets(preset: Preset, median: LighthouseRun): boolean {
  if (preset === 'desktop') return median.performance >= LIGHTHOUSE_GOALS.desktop.performance;
  const goal = LIGHTHOUSE_GOALS.mobile;
  return (
    median.performance >= goal.performance &&
    median.lcpMs <= goal.lcpMs &&
    median.tbtMs <= goal.tbtMs &&
    median.cls <= goal.cls
  );
}

export async function benchLighthouse(opts: { runs: number; portOffset: number }) {
  const db = await createDb();
  const system = await startSystem({
    db,
    portOffset: opts.portOffset,
    logLevel: 'silent',
    extraEnv: LOOPBACK_TEST_LIMITS,
  });
  const url = `${system.urls.platform}/account/login`;
  const runs: Record<Preset, LighthouseRun[]> = { mobile: [], desktop: [] };
  try {
    // One warm-up load (not reported): the server's first answers, the services' first queries.
    await runOnce(url, 'desktop');
    for (let run = 0; run < opts.runs; run++) {
      for (const preset of ['mobile', 'desktop'] as const)
        runs[preset].push(await runOnce(url, preset, `${preset}-${run + 1}`));
    }
  } finally {
    await system.close();
    await db.close();
  }
  const out: Record<string, unknown> = { url: '/account/login (platform)', runs: opts.runs };
  for (const preset of ['mobile', 'desktop'] as const) {
    const median = medianOf(runs[preset]) as LighthouseRun;
    out[preset] = {
      median,
      goal: LIGHTHOUSE_GOALS[preset],
      meetsGoal: meets(preset, median),
      runs: runs[preset],
    };
    const goal =
      preset === 'mobile'
        ? `goal ≥ ${LIGHTHOUSE_GOALS.mobile.performance}, LCP ≤ ${LIGHTHOUSE_GOALS.mobile.lcpMs} ms, TBT ≤ ${LIGHTHOUSE_GOALS.mobile.tbtMs} ms, CLS ${LIGHTHOUSE_GOALS.mobile.cls}`
        : `goal ≥ ${LIGHTHOUSE_GOALS.desktop.performance}`;
    console.log(
      `lighthouse ${preset}: performance ${median.performance}, LCP ${median.lcpMs} ms, TBT ${median.tbtMs} ms, CLS ${median.cls}, FCP ${median.fcpMs} ms (median of ${opts.runs}; ${goal}) ${meets(preset, median) ? 'meets' : 'MISSES'} the goal`,
    );
  }
  return out;
}
