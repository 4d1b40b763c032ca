#!/bin/sh
# Entry point of the image: the first argument names the part to run (see docs/deploy.md).
set -eu
# APP_DIR: where the repository is (/app in the image; a checkout when trying the script outside it).
APP_DIR="${APP_DIR:-/app}"
cd "$APP_DIR"

# The compiled output of `npm run build` (scripts/build.mjs), run by Node itself: no TypeScript
# loader. `--conditions=compiled` makes every workspace package resolve to its dist/ (ADR 0016).
# SERVICE_V8_FLAGS: V8's heap sizing (default: 2 MiB semi-spaces, see ADR 0016; empty for V8's own).
# --disable-proto=delete: no `__proto__` accessor on objects, so a parsed key of that name is data.
run() {
  # The thread-pool preload must come first: libuv sizes its pool once, at the first use. Then
  # tracing (OpenTelemetry, only with OTEL_EXPORTER_OTLP_ENDPOINT set), before the entry point loads
  # the modules it instruments.
  # shellcheck disable=SC2086 # the flags are words
  exec node ${SERVICE_V8_FLAGS---max-semi-space-size=2} --disable-proto=delete --conditions=compiled \
    --import "$APP_DIR/packages/service-kit/threadpool.mjs" \
    --import "$APP_DIR/packages/service-kit/tracing.mjs" "$@"
}

# `healthcheck <part>`: the image's HEALTHCHECK, the part's liveness route on its management port.
healthcheck() {
  case "$1" in
    identity) url="http://127.0.0.1:${IDENTITY_MANAGEMENT_PORT:-9001}/health/alive" ;;
    oauth2) url="http://127.0.0.1:${OAUTH2_MANAGEMENT_PORT:-9002}/health/alive" ;;
    users) url="http://127.0.0.1:${USERS_MANAGEMENT_PORT:-9003}/health/alive" ;;
    agent) url="http://127.0.0.1:${AGENT_MANAGEMENT_PORT:-9004}/health/alive" ;;
    account) url="http://127.0.0.1:${ACCOUNT_MANAGEMENT_PORT:-9005}/health/alive" ;;
    *)
      echo "healthcheck: unknown part ${1:-}" >&2
      exit 64
      ;;
  esac
  exec node --disable-proto=delete -e 'fetch(process.argv[1], { headers: { host: "localhost" }, signal: AbortSignal.timeout(2500) })
    .then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))' "$url"
}

needs_database() {
  if [ -z "${DATABASE_URL:-}" ] && [ -z "${DATABASE_URL_FILE:-}" ]; then
    echo "$1 needs DATABASE_URL or DATABASE_URL_FILE (PostgreSQL): an in-memory database would vanish with the container." >&2
    exit 64
  fi
}

part="${1:-help}"
[ "$#" -gt 0 ] && shift
case "$part" in
  identity) needs_database identity; run services/identity/dist/main.js "$@" ;;
  oauth2) needs_database oauth2; run services/oauth2/dist/main.js "$@" ;;
  users) needs_database users; run services/users/dist/main.js "$@" ;;
  agent) needs_database agent; run services/agent/dist/main.js "$@" ;;
  account) run apps/account/server/dist/server/main.js "$@" ;;
  stand-ins) run dev/dist/main.js "$@" ;;
  admin) exec node --disable-proto=delete --conditions=compiled services/users/dist/cli.js "$@" ;;
  healthcheck) healthcheck "${1:-}" ;;
  help | --help | -h)
    # printf, not cat: the image has no coreutils.
    printf '%s\n' "\
Usage: docker run IMAGE <part> [args]
  identity    identity service (public 4433, admin 4434)
  oauth2      authorization server (public 4444, admin 4445)
  users       user service (public 4455, admin 4456)
  agent       agent service (public 4466, admin 4467)
  account     account app server (4000-4007)
  stand-ins   development stand-ins (never in production)
  admin ...   the admin CLI, e.g. 'admin keys:rotate'
  <service> migrate [status]   apply (or list) a service's database migrations, then exit
Configuration: environment variables, see docs/deploy.md."
    ;;
  *)
    echo "unknown part: $part (try: help)" >&2
    exit 64
    ;;
esac
