/**
 * Environment for every long-running process of the system, read by glibc's allocator when the
 * process starts (so it is passed to children; `npm start`, `npm run bench` and the Dockerfile set
 * the same value themselves).
 *
 * Why: each password hash (argon2id, 19 MiB) allocates its scratch memory with malloc on a thread of
 * libuv's pool. glibc raises its mmap threshold to the size of the last freed mmapped block, so
 * after the first hashes those 19 MiB blocks come from per-thread arenas and stay resident after
 * being freed: a 4-minute soak grew from 770 to 932 MB of RSS (+21 %) with the V8 heap unchanged
 * (heap snapshots 317 → 315 MB). A fixed threshold of 4 MiB keeps large blocks mmapped, so they go
 * back to the system when freed: the same soak went from 500 to 444 MB.
 */
export const MALLOC_ENV = { MALLOC_MMAP_THRESHOLD_: String(4 * 1024 * 1024) } as const;
