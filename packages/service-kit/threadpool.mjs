// Preload (`node --import ./packages/service-kit/threadpool.mjs ...`, before any other --import):
// sizes libuv's thread pool, which libuv creates once, at its first use, from UV_THREADPOOL_SIZE.
// Setting the variable later in the program has no effect: the TypeScript loader has already used
// the pool to read files by then, so this must be a plain JavaScript file loaded first.
//
// Why a deliberate size: password hashing (argon2, native code) runs on this pool, and so do file
// reads, DNS look-ups for every outbound fetch, and asynchronous crypto. With the default of 4
// threads, a few concurrent logins would occupy every thread, and a service-to-service call would
// wait for a hash to finish just to resolve `localhost`. The identity service admits at most
// IDENTITY_HASH_CONCURRENCY hashes at a time (default: the number of CPUs), so the pool gets that
// many threads plus 4 for everything else. An explicit UV_THREADPOOL_SIZE is left as it is.
import { availableParallelism } from 'node:os';

export const OTHER_POOL_WORK = 4;

if (!process.env.UV_THREADPOOL_SIZE) {
  const configured = Number(process.env.IDENTITY_HASH_CONCURRENCY);
  const hashes = Number.isInteger(configured) && configured > 0 ? configured : availableParallelism();
  process.env.UV_THREADPOOL_SIZE = String(Math.min(1024, hashes + OTHER_POOL_WORK));
}
