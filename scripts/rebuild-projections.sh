#!/bin/sh
# Operators: rebuild the orders read model from the event log into a new file and swap to it
# atomically while the service keeps answering. Same environment as `pnpm start`
# (WAYBILL_DATA_DIR, WAYBILL_STORE, …). Extra arguments go to `waybill rebuild`.
set -eu
cd "$(dirname "$0")/.."
exec pnpm --silent waybill rebuild "$@"
