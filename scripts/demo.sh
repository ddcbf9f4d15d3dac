#!/usr/bin/env bash
# The demo command: installs what it needs (pnpm, npm dependencies, the Kafka jars via Maven on
# first use), builds, then runs examples/demo.ts. Extra arguments go to the demo, e.g.
#   npm run demo -- --brokers localhost:9092
set -euo pipefail
cd "$(dirname "$0")/.."
# `npm run demo -- --flag` strips the `--`; pnpm passes it on, so `pnpm demo -- --flag` works too.
if [ "${1:-}" = -- ]; then shift; fi
source scripts/lib/toolchain.sh
ensure_toolchain
pnpm install --frozen-lockfile --reporter=silent
pnpm exec tsc -b
# The busy-time comparison reads its weights from a real Prometheus.
if [[ " $* " == *" --busy-time "* ]]; then
  source scripts/lib/prometheus.sh
  ensure_prometheus_servers
fi
# @platformatic/kafka needs Node >= 22.22 or >= 24.6: on an older node, the platformatic demo runs
# on the Node 24 that ensure_node24 keeps in .cache/.
if [[ " $* " == *" --client platformatic "* ]] && [ "$(node -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then
  ensure_node24 >/dev/null
  PATH="$NODE24_BIN:$PATH" exec "$NODE24_BIN/node" examples/.build/demo.js "$@"
fi
exec node examples/.build/demo.js "$@"
