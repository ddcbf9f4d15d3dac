#!/usr/bin/env bash
# The one test command. On a machine with Node 20+, Java 17+ and Maven it installs everything
# else (pnpm, the npm dependencies, the Kafka broker jars via Maven), then builds, lints, runs the
# unit tests and the integration suite against a real Kafka broker in KRaft mode.
#
#   KAFKA_VERSIONS="4.4.0 3.9.2"  broker versions for the integration suite (default: the 4.x
#                                  default; under CI both a 4.x and a 3.9.x); given explicitly
#                                  they run on the machine's node (under FULL_MATRIX on each)
#   SKIP_INTEGRATION=1            unit tests only
#   INTEGRATION_WORKERS=2         test files of one integration run at a time (default: jest's,
#                                  the cores less one, so 1 on a 2-core machine). The
#                                  files are isolated (own topics and groups), so 2 works: on this
#                                  2-core machine it took the Kafka 4.x run from 21 to 11 minutes
#                                  with every test passing; CI keeps 1 until the timing-sensitive
#                                  files have a record of passing that way on Node 24 too
#   CI=true                       also Node.js 24 (installed into .cache/ from the npm registry):
#                                  unit tests on both Node lines, integration as the pairs
#                                  Node 20 x Kafka 3.9.x and Node 24 x Kafka 4.x, plus the
#                                  @platformatic/kafka files on Node 24 x Kafka 3.9.x
#   JEST_RUN_TIMEOUT=35m          cap on one jest run (timeout(1) syntax); past it the run fails
#   FULL_MATRIX=1                 Node 24 too, and the integration suite on every Node line x
#                                  every Kafka version
#
# Every jest run runs on one chosen node binary (first in PATH for its child processes too) and
# writes out/test-results/<label>.json; labels name the Node and Kafka versions.
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

jest_run() { # jest_run LABEL NODE_BIN_DIR ARGS... : a jest run on that node, totals from its JSON report
  local label=$1 bin=$2; shift 2
  echo "==> jest $label ($("$bin/node" --version))"
  # jest itself, its workers and every process a test spawns (node, npm, pnpm) use this node. The
  # machine's node is already first in PATH; another one goes in front of it.
  local path=$PATH
  [ "$(command -v node)" = "$bin/node" ] || path="$bin:$PATH"
  # A jest kept alive by a leaked handle never exits by itself; the cap turns that into a failure
  # of this run (exit 124) instead of a CI job that hangs until it is killed.
  PATH="$path" timeout --kill-after=30s "${JEST_RUN_TIMEOUT:-35m}" \
    "$bin/node" node_modules/jest/bin/jest.js "$@" --json --outputFile="$results/$label.json" \
    2> >(tee "$results/$label.log" >&2)
  local code=$?
  # A jest that exits non-zero although every test passed (a file required after the environment
  # was torn down, a failed global teardown) is a defect too: the summary counts it as a failure.
  if [ "$code" != 0 ]; then
    echo "jest $label exited $code" >&2
    echo "$code" >"$results/$label.exit"
  fi
}

quiet() { "$@" >/dev/null; }
node_major() { "$1/node" -p 'process.versions.node.split(".")[0]'; }

ensure_toolchain || { echo "0 passed, 1 failed"; exit 1; }
step "install dependencies" pnpm install --frozen-lockfile || { echo "0 passed, 1 failed"; exit 1; }
step "build (tsc -b)" pnpm exec tsc -b || { echo "0 passed, 1 failed"; exit 1; }
step "lint (eslint)" pnpm exec eslint . || true
step "format (prettier --check)" pnpm exec prettier --check . || true
step "API reference (typedoc, warnings are errors)" pnpm run --silent docs || true

# Node lines: the machine's node (20+), plus Node 24 under CI or FULL_MATRIX.
node_bins=("$(dirname "$(command -v node)")")
full_matrix=0
[ "${FULL_MATRIX:-0}" = 1 ] && full_matrix=1
if [ "${CI:-}" = true ] || [ "$full_matrix" = 1 ]; then
  if [ "$(node_major "${node_bins[0]}")" != 24 ] && step "install Node.js $NODE24_VERSION" quiet ensure_node24; then
    node_bins+=("$NODE24_BIN")
  fi
fi

for bin in "${node_bins[@]}"; do
  jest_run "unit-node$(node_major "$bin")" "$bin" --selectProjects unit
done

if [ "${SKIP_INTEGRATION:-0}" != 1 ]; then
  # Real Prometheus and VictoriaMetrics servers for the weights-prometheus tests (Debian packages).
  ensure_prometheus_servers || true
  kafka_4x="$(node -p "require('./test/.build/support/kafka-broker.js').DEFAULT_KAFKA_VERSION")"
  kafka_39="$(node -p "require('./test/.build/support/kafka-broker.js').KAFKA_39_VERSION")"
  runs=() # "NODE_BIN_DIR KAFKA_VERSION" pairs
  if [ "$full_matrix" = 1 ]; then
    for bin in "${node_bins[@]}"; do
      for version in ${KAFKA_VERSIONS:-$kafka_4x $kafka_39}; do runs+=("$bin $version"); done
    done
  elif [ "${CI:-}" = true ] && [ -z "${KAFKA_VERSIONS:-}" ]; then
    # Older Node with the older Kafka line, current Node with current Kafka: every Node line and
    # every Kafka line runs the whole suite once, at half the cost of the cross product.
    runs=("${node_bins[0]} $kafka_39" "${node_bins[-1]} $kafka_4x")
  else
    for version in ${KAFKA_VERSIONS:-$kafka_4x}; do runs+=("${node_bins[0]} $version"); done
  fi
  for entry in "${runs[@]}"; do
    read -r bin version <<<"$entry"
    KAFKA_VERSION=$version jest_run "integration-node$(node_major "$bin")-kafka-$version" "$bin" --selectProjects integration \
      ${INTEGRATION_WORKERS:+--maxWorkers="$INTEGRATION_WORKERS"}
  done
  # The split above runs the older Kafka line on the older Node only, where @platformatic/kafka
  # (Node >= 22.22) skips: its files also run on Node 24 against that line.
  if [ "$full_matrix" != 1 ] && [ "${CI:-}" = true ] && [ -z "${KAFKA_VERSIONS:-}" ] && [ "${#node_bins[@]}" -gt 1 ]; then
    KAFKA_VERSION=$kafka_39 jest_run "integration-node24-kafka-$kafka_39-platformatic" "${node_bins[-1]}" \
      --selectProjects integration --testPathPatterns 'test/(platformatic|platformatic-trigger|packed-install-platformatic)\.int'
  fi
fi

node scripts/lib/summarize-jest.js "$results" "$failed_steps"
