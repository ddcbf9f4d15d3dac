#!/usr/bin/env bash
# The demo command: installs what it needs (pnpm, npm dependencies, the Kafka jars via Maven on
# first use), builds, then runs examples/demo.ts. Extra arguments go to the demo, e.g.
#   npm run demo -- --brokers localhost:9092
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
ensure_toolchain
pnpm install --frozen-lockfile --reporter=silent
pnpm exec tsc -b
# The busy-time comparison reads its weights from a real Prometheus.
if [[ " $* " == *" --busy-time "* ]]; then
  source scripts/lib/prometheus.sh
  ensure_prometheus_servers
fi
exec node examples/.build/demo.js "$@"
