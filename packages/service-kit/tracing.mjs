// Preload (`node --import …/packages/service-kit/tracing.mjs <entry>`, after threadpool.mjs, and
// after tsx when running the TypeScript sources): OpenTelemetry tracing, started before the entry
// point starts its servers (see src/tracing.ts).
// Without OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) it reads one variable
// and loads nothing else: tracing off costs nothing.
import { tracingConfigured } from '@acme/service-kit/tracing-gate';

if (tracingConfigured(process.env)) {
  const { startTracing, tracingSettings } = await import('@acme/service-kit/tracing');
  await startTracing(tracingSettings(process.env), process.argv[1]);
}
