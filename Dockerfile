# syntax=docker/dockerfile:1
# Two images from one build:
#   platform (the default target)  the API and the job worker, one image for both roles: the command chooses
#                                  (`node apps/api/dist/main.js --role api` or `--role worker`)
#   docs                           the documentation site and its API reference
# Every build step is scripts/image.sh, which scripts/image.test.ts runs into a clean directory and starts.
# docker build -t mountain .   ·   docker build --target docs -t mountain-docs .   ·   compose.yaml runs both.
ARG NODE_IMAGE=node:20.19-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
COPY . .
RUN npm ci --ignore-scripts --no-audit --no-fund
RUN scripts/image.sh build && scripts/image.sh build-docs
RUN scripts/image.sh platform /out/app && scripts/image.sh docs /out/site

FROM ${NODE_IMAGE} AS docs
WORKDIR /site
COPY --from=build /out/site /site
USER node
EXPOSE 3000
HEALTHCHECK --interval=30s --timeout=3s --start-period=10s \
  CMD ["node", "-e", "fetch('http://127.0.0.1:3000/').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "server/serve.js", "build", "3000", "0.0.0.0"]

FROM ${NODE_IMAGE} AS platform
WORKDIR /app
COPY --from=build /out/app /app
# The compiled code resolves its imports (and the SDKs') to dist/ under this condition.
ENV NODE_ENV=production NODE_OPTIONS=--conditions=mountain-compiled API_HOST=0.0.0.0 API_PORT=8080
USER node
EXPOSE 8080
# No core dumps: a process's memory holds the secrets it opened (the worker's: the deployment mnemonic and the keys
# derived from it). `ulimit -c 0` sets the soft and the hard limit, so the process cannot raise it again; then the
# command (CMD, or compose.yaml's `command`) runs in the shell's place.
ENTRYPOINT ["/bin/sh", "-c", "ulimit -c 0 && exec \"$@\"", "mountain"]
# /healthz answers while the API process lives; the worker serves no HTTP (compose.yaml turns this off for it).
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.API_PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "apps/api/dist/main.js", "--role", "api"]
