#!/usr/bin/env bash
# Runs one broker JVM on behalf of a Node test process and makes sure it never outlives it.
#
#   kafka-guard.sh PARENT_PID PID_FILE COMMAND [ARG...]
#
# Node cannot clean up after SIGKILL, an OOM kill or a crashed jest worker, and inside a jest test
# environment its signal and 'exit' listeners never fire (jest hands tests a copy of `process`).
# So this guard polls PARENT_PID about once a second and stops COMMAND as soon as the parent is
# gone. SIGTERM, SIGINT and SIGHUP stop COMMAND too: TERM first, so Kafka shuts down cleanly and
# can restart on the same data dir, then KILL after a grace period. COMMAND's pid goes to PID_FILE
# so a later run can kill a JVM left behind if even this guard was SIGKILLed.
set -u

parent_pid=$1
pid_file=$2
shift 2
# A node asked to stop may need a while for controlled shutdown; an orphan's data is throwaway, and
# the last nodes of a cluster cannot shut down cleanly anyway once the quorum is gone.
grace_s=${KAFKA_GUARD_GRACE_S:-15}
orphan_grace_s=${KAFKA_GUARD_ORPHAN_GRACE_S:-3}

"$@" &
child_pid=$!
echo "$child_pid" >"$pid_file"

stop_child() {
  kill -TERM "$child_pid" 2>/dev/null || return 0
  local deadline=$((SECONDS + ${1:-$grace_s}))
  while kill -0 "$child_pid" 2>/dev/null && ((SECONDS < deadline)); do
    sleep 0.2
  done
  kill -KILL "$child_pid" 2>/dev/null
  wait "$child_pid" 2>/dev/null
}

trap 'stop_child; exit 143' TERM
trap 'stop_child; exit 130' INT
trap 'stop_child; exit 129' HUP

# A reused pid could make `kill -0` lie, so also notice being re-parented (to init or a subreaper).
parent_alive() {
  kill -0 "$parent_pid" 2>/dev/null || return 1
  local stat
  read -r stat <"/proc/$$/stat" 2>/dev/null || return 0
  stat=${stat##*) }
  set -- $stat
  [[ $2 == "$parent_pid" ]]
}

# Bash reaps background children as they exit, so `kill -0` turns false once the JVM is gone.
while kill -0 "$child_pid" 2>/dev/null; do
  if ! parent_alive; then
    stop_child "$orphan_grace_s"
    exit 1
  fi
  # Sleeping in the background keeps the traps responsive: `wait` returns as soon as a signal lands.
  sleep 1 &
  wait $!
done

wait "$child_pid"
exit $?
