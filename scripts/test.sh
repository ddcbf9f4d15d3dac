#!/usr/bin/env bash
# The one test command. On a machine with Node 20+, Java 17+ and Maven it installs everything
# else (pnpm, the npm dependencies, the Kafka broker jars via Maven), then builds, lints, runs the
# unit tests and the integration suite against a real Kafka broker in KRaft mode.
#
#   KAFKA_VERSIONS="4.4.0 3.9.2"  broker versions for the integration suite (default: the 4.x
#                                  default; under CI both a 4.x and a 3.9.x)
#   SKIP_INTEGRATION=1            unit tests only
#
# Ends with one line "N passed, N failed, N skipped" and exits non-zero when anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/lib/toolchain.sh
source scripts/lib/prometheus.sh

results=out/test-results
rm -rf "$results" && mkdir -p "$results"
failed_steps=0

step() { # step NAME COMMAND... : a non-test step; its failure counts as one failed test
  local name=$1; shift
  echo "==> $name"
  if ! "$@"; then
    echo "FAILED: $name" >&2
    failed_steps=$((failed_steps + 1))
    return 1
  fi
}

jest_run() { # jest_run LABEL ARGS... : a jest run whose totals are read from its JSON report
  local label=$1; shift
  echo "==> jest $label"
  pnpm exec jest "$@" --json --outputFile="$results/$label.json" 2> >(tee "$results/$label.log" >&2) \
    || echo "jest $label exited non-zero" >&2
}

ensure_toolchain || { echo "0 passed, 1 failed"; exit 1; }
step "install dependencies" pnpm install --frozen-lockfile || { echo "0 passed, 1 failed"; exit 1; }
step "build (tsc -b)" pnpm exec tsc -b || { echo "0 passed, 1 failed"; exit 1; }
step "lint (eslint)" pnpm exec eslint . || true
step "format (prettier --check)" pnpm exec prettier --check . || true

jest_run unit --selectProjects unit

if [ "${SKIP_INTEGRATION:-0}" != 1 ]; then
  # Real Prometheus and VictoriaMetrics servers for the weights-prometheus tests (Debian packages).
  ensure_prometheus_servers || true
  default_versions="$(node -p "require('./test/.build/support/kafka-broker.js').DEFAULT_KAFKA_VERSION")"
  [ "${CI:-}" = true ] && default_versions="$default_versions $(node -p "require('./test/.build/support/kafka-broker.js').KAFKA_39_VERSION")"
  for version in ${KAFKA_VERSIONS:-$default_versions}; do
    KAFKA_VERSION=$version jest_run "integration-kafka-$version" --selectProjects integration
  done
fi

node scripts/lib/summarize-jest.js "$results" "$failed_steps"
