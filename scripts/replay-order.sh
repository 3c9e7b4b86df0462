#!/bin/sh
# Auditors: print an order's events, its state after each, and check its hash chain.
#   scripts/replay-order.sh <order_id> [--account <account>] [--json]
# Exit code 1 when the chain is broken (the revision is printed). Same environment as `pnpm start`
# (WAYBILL_DATA_DIR, default the repository's ./data).
set -eu
if [ "$#" -lt 1 ]; then
  echo "usage: $0 <order_id> [--account <account>] [--json]" >&2
  exit 2
fi
exec "$(dirname "$0")/waybill.sh" replay "$@"
