#!/bin/sh
# Operators: rebuild the orders read model from the event log into a new file and swap to it
# atomically while the service keeps answering. Same environment as `pnpm start`
# (WAYBILL_DATA_DIR, default the repository's ./data; WAYBILL_STORE, …). Extra arguments go to
# `waybill rebuild`.
set -eu
exec "$(dirname "$0")/waybill.sh" rebuild "$@"
