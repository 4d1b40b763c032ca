// Whether this process traces at all, decided from two standard OpenTelemetry variables before
// anything of the SDK is loaded (the preload, tracing.mjs, reads it first; the account app server
// reads it to tell the browser to send `traceparent`). Without an endpoint nothing is loaded.

/** Tracing is on: an OTLP endpoint is set (the general one or the traces one) and the SDK is not disabled. */
export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/**
 * The W3C Trace Context request headers, which the account app sends on its calls when tracing is
 * on: every public API's CORS allows them, so a sign-in's calls from the browser join one trace.
 */
export const TRACE_CONTEXT_HEADERS = ['traceparent', 'tracestate'] as const;
