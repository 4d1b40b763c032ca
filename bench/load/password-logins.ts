// Load child: password logins against `publicUrl` for `durationSec`, either closed-loop with
// `concurrency` logins in flight, or open-loop at `ratePerSec`. Prints the latencies of the logins
// that succeeded and the count of those that did not.
import { readInput } from './child.ts';
import { passwordLogin } from './password-login.ts';

const input = await readInput<{
  publicUrl: string;
  email: string;
  password: string;
  durationSec: number;
  concurrency?: number;
  ratePerSec?: number;
}>();
const latencies: number[] = [];
let failures = 0;
const once = async () => {
  const t0 = performance.now();
  const { status } = await passwordLogin(input.publicUrl, input.email, input.password).catch(() => ({
    status: 0,
  }));
  if (status === 200) latencies.push(performance.now() - t0);
  else failures++;
};
const started = performance.now();
const deadline = started + input.durationSec * 1000;
if (input.ratePerSec) {
  const inflight: Promise<void>[] = [];
  while (performance.now() < deadline) {
    inflight.push(once());
    await new Promise((r) => setTimeout(r, 1000 / input.ratePerSec!));
  }
  await Promise.all(inflight);
} else {
  await Promise.all(
    Array.from({ length: input.concurrency ?? 1 }, async () => {
      while (performance.now() < deadline) await once();
    }),
  );
}
console.log(JSON.stringify({ latencies, failures, elapsedSec: (performance.now() - started) / 1000 }));
