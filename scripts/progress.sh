# Progress a person can see, for the scripts that build and start things
# (sourced, bash). Builders keep their compilers' chatter in a log file that
# is shown only when the step fails.

# step <text>: one line saying what happens now (stderr, so that a script's
# stdout stays its result).
step() {
  echo "==> $*" >&2
}

# logged <log file> <command...>: runs the command with its output in the
# log file. While it runs, a line every minute says it is still going, so a
# long cold build is never silent for long; if it fails, the log's last lines
# are shown and its status returned.
logged() {
  local log=$1 status=0 parent=$$
  shift
  mkdir -p "$(dirname "$log")"
  # The ticker stops with this script, even if the script is killed. Its
  # sleep holds none of our output: a reader of this script's output (a
  # pipe, a command substitution) must not wait for a sleep to end.
  (
    minutes=0
    while sleep 60 </dev/null >/dev/null 2>&1 && kill -0 "$parent" 2>/dev/null; do
      minutes=$((minutes + 1))
      echo "    ... still running (${minutes} min; log: $log)" >&2
    done
  ) </dev/null >/dev/null 9>&- 8>&- &
  local ticker=$!
  "$@" >"$log" 2>&1 || status=$?
  kill "$ticker" 2>/dev/null || true
  wait "$ticker" 2>/dev/null || true
  if [ "$status" -ne 0 ]; then
    echo "failed (exit $status); the last lines of $log:" >&2
    tail -n 30 "$log" >&2
  fi
  return "$status"
}
