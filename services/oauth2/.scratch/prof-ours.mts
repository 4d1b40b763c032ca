import { benchOAuth2 } from '../../../bench/oauth2-bench.ts';
process.env.BENCH_OURS_ONLY = '1';
const r = await benchOAuth2({ durationSec: 5, connections: 10 });
console.log(JSON.stringify(r).slice(0, 300));
process.exit(0);
