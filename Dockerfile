# syntax=docker/dockerfile:1
# renderkit server: Debian bookworm, Node 20, Debian's Chromium, ffmpeg, poppler and fonts (CJK and
# colour emoji), tini as PID 1, running as the non-root user `renderkit`, data in the /data volume.
#   docker build -t renderkit .
#   docker run -p 8080:8080 -v renderkit-data:/data renderkit
# Chromium runs as `renderkit` too, with its sandbox where the container allows user namespaces.
# Docker's default seccomp profile does not: the server then starts Chromium with --no-sandbox and
# logs `chromium sandbox: off (…)` with the fix. To have the sandbox, pass a seccomp profile that
# allows user namespaces (docs/security.md#chromium-sandbox, which shows how to make one); set
# RENDERKIT_CHROMIUM_SANDBOX to `on` as well to refuse to run without it:
#   docker run --security-opt seccomp=chromium-seccomp.json -p 8080:8080 -v renderkit-data:/data renderkit
# The system set-up is scripts/container-setup.sh, which CI also runs on the development machine
# (no Docker there): see docs/deployment.md#container.

# --- build: every dependency, compile, then drop the dev ones ------------------------------------
FROM node:20-bookworm-slim AS build
WORKDIR /app
# Nothing may download a browser or a binary at install time (Debian's are used).
ENV PUPPETEER_SKIP_DOWNLOAD=1 PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 \
    TURBO_TELEMETRY_DISABLED=1 npm_config_update_notifier=false npm_config_fund=false
COPY . .
# scripts/setup.sh as on a developer's machine (npm ci, build), minus the system packages. After
# the build, only the packages the server runs stay: the examples' and tests' workspaces
# leave package.json, `npm prune` drops dev dependencies, sources and tests go.
RUN RENDERKIT_SKIP_APT=1 bash scripts/setup.sh \
 && node -e 'const f="package.json",p=require("./"+f);p.workspaces=["core","plugins/*","server"];require("fs").writeFileSync(f,JSON.stringify(p,null,2)+"\n")' \
 && npm prune --omit=dev --no-audit --no-fund \
 && rm -rf node_modules/.cache core/src core/test plugins/*/src plugins/*/test server/src server/test \
    core/*.tsbuildinfo plugins/*/*.tsbuildinfo server/*.tsbuildinfo

# --- runtime ----------------------------------------------------------------------------------
FROM node:20-bookworm-slim
COPY scripts/container-setup.sh /usr/local/sbin/container-setup.sh
ENV RENDERKIT_DATA_DIR=/data
# Debian packages, the user `renderkit` and /data owned by it, then the same check CI runs (its
# sandbox line reports on the build's own seccomp profile, not on the one `docker run` is given).
RUN bash /usr/local/sbin/container-setup.sh --packages --user renderkit --check --clean
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/core ./core
COPY --from=build /app/plugins ./plugins
COPY --from=build /app/server ./server
RUN printf '#!/bin/sh\nexec node /app/server/dist/cli.js "$@"\n' >/usr/local/bin/renderkit \
 && chmod 755 /usr/local/bin/renderkit

# Every setting is also an environment variable (docs/server-config.md); these suit a container.
# The first start creates the default project and prints its keys once (docker logs).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 RENDERKIT_DATA_DIR=/data \
    RENDERKIT_CHROMIUM=/usr/bin/chromium FFMPEG_PATH=/usr/bin/ffmpeg RENDERKIT_LOG_FORMAT=json
VOLUME ["/data"]
EXPOSE 8080
# Never root: Chromium refuses its sandbox as root.
USER renderkit
HEALTHCHECK --interval=30s --timeout=5s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT||8080}/health`).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# tini reaps Chromium's processes and forwards SIGTERM, so renders drain (drainSeconds) on `docker stop`.
ENTRYPOINT ["tini", "--", "renderkit"]
CMD ["serve"]
