#!/usr/bin/env bash
# The one test command. On a machine with Node 20+, Java 17+ and Maven it installs everything
# else (pnpm, the npm dependencies, the Kafka broker jars via Maven), then builds, lints, runs the
# unit tests and the integration suite against a real Kafka broker in KRaft mode.
#
#   KAFKA_VERSIONS="4.4.0 3.9.2"  broker versions for the integration suite (default: the 4.x
#                                  default; under CI both a 4.x and a 3.9.x); given explicitly
#                                  they run on the machine's node (under FULL_MATRIX on each)
#   SKIP_INTEGRATION=1            unit tests only
#   INTEGRATION_WORKERS=N         test files of one integration run at a time (default 3 with
#                                  one Kafka version, 2 each when versions run side by side). The
#                                  files are isolated (own topics, groups, ports, temp dirs) and
#                                  mostly wait on the broker, so on 2 cores this divides the time
#   SERIAL=1                      the old order: one step, one jest run, one file at a time
#   CI=true                       also Node.js 24 (installed into .cache/ from the npm registry):
#                                  unit tests on both Node lines, integration as the pairs
#                                  Node 20 x Kafka 3.9.x and Node 24 x Kafka 4.x, plus the
#                                  @platformatic/kafka files on Node 24 x Kafka 3.9.x
#   JEST_RUN_TIMEOUT=35m          cap on one jest run (timeout(1) syntax); past it the run fails
#   FULL_MATRIX=1                 Node 24 too, and the integration suite on every Node line x
#                                  every Kafka version
#
# After the build, three kinds of work run side by side as lanes: the checks (eslint, prettier,
# typedoc) and unit tests, and one lane per Kafka version, each with its own broker. A lane's
# output goes to out/test-results/<lane>.out and is printed when it ends. The few integration
# files jest.config.js keeps apart run last, alone.
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
# Lanes are subshells: a failed step is recorded as a line here, not in a shell variable.
failed_steps_file="$results/failed-steps.txt"
: >"$failed_steps_file"

step() { # step NAME COMMAND... : a non-test step; its failure counts as one failed test
  local name=$1; shift
  echo "==> $name"
  if ! "$@"; then
    echo "FAILED: $name" >&2
    echo "$name" >>"$failed_steps_file"
    return 1
  fi
}

jest_run() { # jest_run LABEL NODE_BIN_DIR ARGS... : a jest run on that node, totals from its JSON report
  local label=$1 bin=$2 started=$SECONDS; shift 2
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
  echo "==> jest $label took $((SECONDS - started)) s"
}

lane_pids=() lane_names=()
lane() { # lane NAME COMMAND... : runs COMMAND in the background (in the foreground under SERIAL=1)
  local name=$1; shift
  if [ "${SERIAL:-0}" = 1 ]; then
    "$@"
    return
  fi
  echo "==> lane $name started at $SECONDS s, output in $results/$name.out"
  # Each lane draws test ports from a slice of its own (test/support/free-ports.ts): a broker
  # restarted on its old port must not find it taken by another lane's broker.
  (export LOAD_AWARE_PORT_LANE=${#lane_pids[@]}; "$@") >"$results/$name.out" 2>&1 &
  lane_pids+=("$!") lane_names+=("$name")
}
wait_lanes() { # prints each lane's output once it ends, in the order they started
  local i
  for i in "${!lane_pids[@]}"; do
    wait "${lane_pids[$i]}"
    echo "==> lane ${lane_names[$i]} ended (at $SECONDS s or earlier)"
    cat "$results/${lane_names[$i]}.out"
  done
}

quiet() { "$@" >/dev/null; }
node_major() { "$1/node" -p 'process.versions.node.split(".")[0]'; }

ensure_toolchain || { echo "0 passed, 1 failed"; exit 1; }
step "install dependencies" pnpm install --frozen-lockfile || { echo "0 passed, 1 failed"; exit 1; }
step "build (tsc -b)" pnpm exec tsc -b || { echo "0 passed, 1 failed"; exit 1; }

# Node lines: the machine's node (20+), plus Node 24 under CI or FULL_MATRIX.
node_bins=("$(dirname "$(command -v node)")")
full_matrix=0
[ "${FULL_MATRIX:-0}" = 1 ] && full_matrix=1
if [ "${CI:-}" = true ] || [ "$full_matrix" = 1 ]; then
  if [ "$(node_major "${node_bins[0]}")" != 24 ] && step "install Node.js $NODE24_VERSION" quiet ensure_node24; then
    node_bins+=("$NODE24_BIN")
  fi
fi

checks_and_unit() {
  step "lint (eslint)" pnpm exec eslint .
  step "format (prettier --check)" pnpm exec prettier --check .
  step "API reference (typedoc, warnings are errors)" pnpm run --silent docs
  local bin
  for bin in "${node_bins[@]}"; do
    jest_run "unit-node$(node_major "$bin")" "$bin" --selectProjects unit
  done
}

# Under SERIAL=1 every file runs in the one run; otherwise a full run leaves out the files
# jest.config.js lists to run alone, and they run after every lane has ended.
files=parallel
[ "${SERIAL:-0}" = 1 ] && files=
integration_lane() { # integration_lane KAFKA_VERSION "NODE_BIN_DIR[ ARGS...]"... : jest runs one after another
  local version=$1 entry bin args group; shift
  local -
  set -f # the extra arguments hold a regular expression, not a glob
  for entry in "$@"; do
    read -r bin args <<<"$entry"
    group=$files
    [ -z "$args" ] || group= # a run of a few files by pattern has all it selects
    # shellcheck disable=SC2086 # args is a list of words
    INTEGRATION_FILES=$group KAFKA_VERSION=$version \
      jest_run "integration-node$(node_major "$bin")-kafka-$version${args:+-platformatic}" "$bin" \
      --selectProjects integration --maxWorkers="$workers" $args
  done
}
alone_runs() { # the files left out above, one at a time, for every full run of every lane
  local version entry bin args
  for version in "${versions[@]}"; do
    while read -r bin args; do
      [ -z "$args" ] || continue
      INTEGRATION_FILES=alone KAFKA_VERSION=$version \
        jest_run "integration-node$(node_major "$bin")-kafka-$version-alone" "$bin" --selectProjects integration --maxWorkers=1
    done <<<"${lane_runs[$version]%$'\n'}"
  done
}

if [ "${SKIP_INTEGRATION:-0}" = 1 ]; then
  checks_and_unit
else
  # Real Prometheus and VictoriaMetrics servers for the weights-prometheus tests (Debian packages).
  ensure_prometheus_servers || true
  kafka_4x="$(node -p "require('./test/.build/support/kafka-broker.js').DEFAULT_KAFKA_VERSION")"
  kafka_39="$(node -p "require('./test/.build/support/kafka-broker.js').KAFKA_39_VERSION")"
  # One lane per Kafka version: its runs, "NODE_BIN_DIR[ EXTRA_JEST_ARGS]", one after another.
  declare -A lane_runs=()
  versions=()
  add_run() { # add_run KAFKA_VERSION RUN
    [ -n "${lane_runs[$1]+set}" ] || versions+=("$1")
    lane_runs[$1]+="$2"$'\n'
  }
  if [ "$full_matrix" = 1 ]; then
    for bin in "${node_bins[@]}"; do
      for version in ${KAFKA_VERSIONS:-$kafka_4x $kafka_39}; do add_run "$version" "$bin"; done
    done
  elif [ "${CI:-}" = true ] && [ -z "${KAFKA_VERSIONS:-}" ]; then
    # Older Node with the older Kafka line, current Node with current Kafka: every Node line and
    # every Kafka line runs the whole suite once, at half the cost of the cross product.
    add_run "$kafka_39" "${node_bins[0]}"
    add_run "$kafka_4x" "${node_bins[-1]}"
    # Node 20 skips @platformatic/kafka (Node >= 22.22): its files also run on Node 24 against 3.9.
    if [ "${#node_bins[@]}" -gt 1 ]; then
      add_run "$kafka_39" "${node_bins[-1]} --testPathPatterns test/(platformatic|platformatic-trigger|platformatic-trigger-parity|platformatic-delivery|platformatic-group-lag|packed-install-platformatic)\.int"
    fi
  else
    for version in ${KAFKA_VERSIONS:-$kafka_4x}; do add_run "$version" "${node_bins[0]}"; done
  fi
  # Two lanes side by side are two brokers and twice the files at once: fewer files per lane.
  workers=${INTEGRATION_WORKERS:-$([ "${SERIAL:-0}" = 1 ] && echo 1 || { [ "${#versions[@]}" -gt 1 ] && echo 2 || echo 3; })}
  lane checks-and-unit checks_and_unit
  for version in "${versions[@]}"; do
    mapfile -t entries <<<"${lane_runs[$version]%$'\n'}"
    lane "kafka-$version" integration_lane "$version" "${entries[@]}"
  done
  wait_lanes
  [ -z "$files" ] || alone_runs
fi

node scripts/lib/summarize-jest.js "$results" "$(wc -l <"$failed_steps_file")"
