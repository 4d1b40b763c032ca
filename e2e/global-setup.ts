import type { TestProject } from 'vitest/node';
import { createDb } from '@acme/db';
import { LOOPBACK_TEST_LIMITS, startSystem } from '../scripts/system.ts';

// One whole system for the journeys, on a fresh in-memory database and its own port
// range (npm start's ports + 10000), so a running `npm start` does not get in the way.
export default async function setup(project: TestProject) {
  const db = await createDb();
  const system = await startSystem({
    db,
    portOffset: Number(process.env.E2E_PORT_OFFSET ?? 10_000),
    logLevel: 'silent',
    extraEnv: LOOPBACK_TEST_LIMITS,
  });
  project.provide('urls', system.urls);
  return async () => {
    await system.close();
    await db.close();
  };
}

declare module 'vitest' {
  export interface ProvidedContext {
    urls: import('../scripts/system.ts').SystemUrls;
  }
}
