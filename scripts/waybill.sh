#!/bin/sh
# Shared by the operator scripts: runs the built `waybill` CLI with the caller's working directory
# kept, so that a relative WAYBILL_DATA_DIR means what it says where the operator typed it. Left
# unset, the data directory is the repository's ./data, where `pnpm start` keeps it.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
export WAYBILL_DATA_DIR="${WAYBILL_DATA_DIR:-$root/data}"
[ -f "$root/packages/cli/dist/main.js" ] || (cd "$root" && pnpm --silent build)
exec node "$root/packages/cli/dist/main.js" "$@"
