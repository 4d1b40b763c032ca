#!/bin/sh
# Entry point of the image: the first argument names the part to run (see docs/deploy.md).
set -eu
# APP_DIR: where the repository is (/app in the image; a checkout when trying the script outside it).
APP_DIR="${APP_DIR:-/app}"
cd "$APP_DIR"

run() {
  # The thread-pool preload must come first: libuv sizes its pool once, at the first use.
  exec node --import "$APP_DIR/packages/service-kit/threadpool.mjs" --import tsx "$@"
}

needs_database() {
  if [ -z "${DATABASE_URL:-}" ]; then
    echo "$1 needs DATABASE_URL (PostgreSQL): an in-memory database would vanish with the container." >&2
    exit 64
  fi
}

part="${1:-help}"
[ "$#" -gt 0 ] && shift
case "$part" in
  identity) needs_database identity; run services/identity/src/main.ts "$@" ;;
  oauth2) needs_database oauth2; run services/oauth2/src/main.ts "$@" ;;
  users) needs_database users; run services/users/src/main.ts "$@" ;;
  agent) needs_database agent; run services/agent/src/main.ts "$@" ;;
  account) run apps/account/server/main.ts "$@" ;;
  stand-ins) run dev/src/main.ts "$@" ;;
  admin) exec node --import tsx services/users/src/cli.ts "$@" ;;
  help | --help | -h)
    cat <<'USAGE'
Usage: docker run IMAGE <part> [args]
  identity    identity service (public 4433, admin 4434)
  oauth2      authorization server (public 4444, admin 4445)
  users       user service (public 4455, admin 4456)
  agent       agent service (public 4466, admin 4467)
  account     account app server (4000-4007)
  stand-ins   development stand-ins (never in production)
  admin ...   the admin CLI, e.g. `admin keys:rotate`
Configuration: environment variables, see docs/deploy.md.
USAGE
    ;;
  *)
    echo "unknown part: $part (try: help)" >&2
    exit 64
    ;;
esac
