#!/bin/sh
# The container images' build steps. The Dockerfile runs each of them; scripts/image.test.ts runs them too, into a
# clean directory, and starts the result: the images' contents are tested on machines that cannot build images.
#
#   scripts/image.sh build            compile the API, the SDKs and the docs server, and build the developer console
#                                     (development dependencies needed)
#   scripts/image.sh build-docs       build the docs site (apps/docs/build)
#   scripts/image.sh platform DEST    the API and worker image's /app: the compiled code, the migrations, the built
#                                     console (served at /console/) and the production dependencies only, installed
#                                     from the lock file
#   scripts/image.sh docs DEST        the docs image's /site: the built site and its compiled server
#
# Run from anywhere; every step works in the repository holding this script.
set -eu
cd "$(dirname "$0")/.."

usage() {
  echo "usage: scripts/image.sh build | build-docs | platform DEST | docs DEST" >&2
  exit 2
}

# A clean destination, refused when it holds the repository.
fresh() {
  [ -n "${1:-}" ] || usage
  mkdir -p "$1"
  case "$(pwd)/" in
    "$(cd "$1" && pwd | sed 's:/*$::')"/*) echo "refusing to empty $1: it holds the repository" >&2; exit 2 ;;
  esac
  rm -rf "$1"
  mkdir -p "$1"
}

case "${1:-}" in
  build)
    npm run -s build
    npx tsc -p apps/docs/scripts/tsconfig.build.json
    # The console only when missing or older than its sources (always in a container build, whose context has no
    # dist/): a console already built is not emptied while a server of this repository may be reading it.
    node --import tsx --input-type=module \
      -e "const { ensureConsoleBuilt } = await import('./scripts/lib/siteBuilds.ts'); await ensureConsoleBuilt(process.cwd(), console.log);"
    ;;
  build-docs)
    npm run -s build -w @mountain/docs
    ;;
  platform)
    dest=$2
    fresh "$dest"
    # npm ci checks the lock file against every workspace's manifest, so all of them come along.
    cp package.json package-lock.json .npmrc "$dest/"
    for workspace in $(node -p "require('./package.json').workspaces.join(' ')"); do
      mkdir -p "$dest/$workspace"
      cp "$workspace/package.json" "$dest/$workspace/"
    done
    cp -R apps/api/dist apps/api/migrations apps/api/bin "$dest/apps/api/"
    cp -R packages/webhooks/dist "$dest/packages/webhooks/"
    cp -R packages/client/dist "$dest/packages/client/"
    cp -R apps/console/dist "$dest/apps/console/"
    # Optional packages too are left out: in the API's tree they are typescript and zod (optional peers of
    # abitype, present only because development installs them) and pg-cloudflare (for Cloudflare Workers).
    (cd "$dest" && npm ci --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund --loglevel=error)
    ;;
  docs)
    dest=$2
    fresh "$dest"
    cp -R apps/docs/build "$dest/build"
    mkdir -p "$dest/server"
    cp apps/docs/scripts/dist/serve.js apps/docs/scripts/dist/staticServer.js "$dest/server/"
    echo '{ "type": "module" }' > "$dest/server/package.json"
    ;;
  *)
    usage
    ;;
esac
