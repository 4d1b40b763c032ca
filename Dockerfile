# syntax=docker/dockerfile:1
# The images of the product (`npm run image` builds them all, docs/deploy.md):
#   runtime    the service runtime: the part is the container's argument (identity, oauth2, users,
#              agent, account); `npm run image` also tags one image per part with that part as its
#              command and a HEALTHCHECK of its liveness route (scripts/image.mjs)
#   stand-ins  the development stand-ins, for demos only
#
# BASE_IMAGE is the runtime's base, BUILD_IMAGE the build's (it needs npm). Both default to the
# official Node image of the version the tests run on (the root's `node` dev dependency); where no
# registry can be reached, `npm run image` builds both from Debian packages and that same binary.
ARG BASE_IMAGE=node:24.21.0-bookworm-slim
ARG BUILD_IMAGE=node:24.21.0-bookworm-slim

# ---- build: every dependency, then the compiled services (dist/) and the account app's build ----
# What the later stages take from it is /out/runtime and /out/stand-ins. `npm run image` (without
# --full) makes those two trees on the host from the checkout's compiled output and passes them as
# the named context `build` (--build-context build=<dir>), which replaces this stage: it is skipped.
FROM ${BUILD_IMAGE} AS build
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
COPY packages/i18n/package.json packages/i18n/
COPY packages/identity-contract/package.json packages/identity-contract/
COPY packages/users-contract/package.json packages/users-contract/
COPY packages/mail/package.json packages/mail/
COPY packages/research-cli/package.json packages/research-cli/
COPY packages/service-kit/package.json packages/service-kit/
COPY packages/system-shape/package.json packages/system-shape/
COPY packages/test-kit/package.json packages/test-kit/
COPY dev/package.json dev/
COPY e2e/package.json e2e/
# The root's `postinstall` (it skips its work here, in a checkout of manifests only).
COPY scripts/postinstall.mjs scripts/
# Install scripts stay on: esbuild's and the `node` package's binaries come from the registry.
RUN --mount=type=cache,target=/root/.npm npm ci --no-audit --no-fund
COPY . .
# scripts/build.mjs (every workspace's src/ to dist/), then the app's vite build.
RUN npm run build \
 && node docker/runtime-tree.mjs /out/runtime services/identity services/oauth2 services/users \
      services/agent apps/account --without=dev \
 && node docker/runtime-tree.mjs /out/stand-ins dev

# ---- the runtime's base: Node, tini as PID 1, an unprivileged user; nothing of the product ----
FROM ${BASE_IMAGE} AS base
ARG VERSION=0.0.0
ARG REVISION=unknown
ARG SOURCE=https://github.com/acme/account
LABEL org.opencontainers.image.title="acme-account" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.licenses="UNLICENSED"
# The official image has no tini; the base made from Debian packages has Debian's. The user is
# written with the shell's own echo: the base made from Debian packages has no useradd.
RUN if [ ! -x /usr/bin/tini ]; then \
      apt-get update && apt-get install -y --no-install-recommends tini && rm -rf /var/lib/apt/lists/*; \
    fi \
 && echo 'acme:x:10001:10001:acme-account:/nonexistent:/usr/sbin/nologin' >> /etc/passwd \
 && echo 'acme:x:10001:' >> /etc/group
# MALLOC_MMAP_THRESHOLD_: packages/service-kit/src/malloc.ts says why (password hashing's memory).
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    NODE_ENV=production \
    MALLOC_MMAP_THRESHOLD_=4194304 \
    ACCOUNT_DIST_DIR=/app/apps/account/dist \
    IDENTITY_PUBLIC_HOST=0.0.0.0 \
    OAUTH2_PUBLIC_HOST=0.0.0.0 \
    USERS_PUBLIC_HOST=0.0.0.0 \
    AGENT_PUBLIC_HOST=0.0.0.0 \
    ACCOUNT_HOST=0.0.0.0 \
    IDENTITY_MANAGEMENT_HOST=0.0.0.0 \
    OAUTH2_MANAGEMENT_HOST=0.0.0.0 \
    USERS_MANAGEMENT_HOST=0.0.0.0 \
    AGENT_MANAGEMENT_HOST=0.0.0.0 \
    ACCOUNT_MANAGEMENT_HOST=0.0.0.0
WORKDIR /app
COPY docker/entrypoint.sh /usr/local/bin/acme-entrypoint
# Numeric, so that Kubernetes' runAsNonRoot can check it. The files stay root's and read-only to it:
# a compromised process cannot rewrite its code, and the root filesystem can be mounted read-only.
USER 10001:10001
ENTRYPOINT ["/usr/bin/tini", "--", "/usr/local/bin/acme-entrypoint"]
CMD ["help"]

# ---- stand-ins: the development stand-ins (identity provider, mail, Microsoft), never in production ----
FROM base AS stand-ins
COPY --from=build /out/stand-ins /app
CMD ["stand-ins"]

# ---- runtime: the compiled services, their production dependencies and the built app ----
FROM base AS runtime
COPY --from=build /out/runtime /app

