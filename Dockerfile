# syntax=docker/dockerfile:1
# One image for every part; the part is the container's argument:
#   docker run IMAGE identity | oauth2 | users | agent | account | stand-ins | admin <command…>
# See docs/deploy.md (environment per service, probes, secrets).

# ---- build: dependencies, the compiled services and the account app's static build ----
FROM node:24-bookworm-slim AS build
WORKDIR /app
# Manifests first, so the dependency layer is rebuilt only when they change.
COPY package.json package-lock.json ./
COPY apps/account/package.json apps/account/
COPY services/identity/package.json services/identity/
COPY services/oauth2/package.json services/oauth2/
COPY services/users/package.json services/users/
COPY services/agent/package.json services/agent/
COPY packages/cluster/package.json packages/cluster/
COPY packages/db/package.json packages/db/
COPY packages/identity-contract/package.json packages/identity-contract/
COPY packages/users-contract/package.json packages/users-contract/
COPY packages/mail/package.json packages/mail/
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/test-kit/package.json packages/test-kit/
COPY dev/package.json dev/
COPY e2e/package.json e2e/
# The root's `postinstall` (it skips its work here, in a checkout of manifests only).
COPY scripts/postinstall.mjs scripts/
# Install scripts stay on: the root's `node` dev dependency installs its Node 24 binary from the
# registry (npm scripts put node_modules/.bin first on PATH, so it must be a working one).
RUN npm ci --no-audit --no-fund
COPY . .
# scripts/build.mjs (every workspace's src/ to dist/, ADR 0016), then the app's vite build.
RUN npm run build

# ---- runtime: the compiled services (dist/), their dependencies and the built app; no root ----
FROM node:24-bookworm-slim AS runtime
# MALLOC_MMAP_THRESHOLD_: packages/service-kit/src/malloc.ts says why (password hashing's memory).
ENV NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=4194304 \
    ACCOUNT_DIST_DIR=/app/apps/account/dist \
    IDENTITY_PUBLIC_HOST=0.0.0.0 \
    OAUTH2_PUBLIC_HOST=0.0.0.0 \
    USERS_HOST=0.0.0.0 \
    AGENT_HOST=0.0.0.0 \
    ACCOUNT_HOST=0.0.0.0
WORKDIR /app
# Owned by root and read-only to the service user: a compromised process cannot rewrite its code.
COPY --from=build /app /app
COPY docker/entrypoint.sh /usr/local/bin/acme-entrypoint
RUN chmod 0755 /usr/local/bin/acme-entrypoint
USER node
ENTRYPOINT ["/usr/local/bin/acme-entrypoint"]
CMD ["help"]
