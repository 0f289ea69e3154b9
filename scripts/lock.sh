# shellcheck shell=bash
# Sourced by the scripts of which one may run at a time (per machine or per
# checkout):
#   wait_for_lock <fd> <lock file> <command...>
# holds an exclusive lock on the file through file descriptor <fd> until the
# script ends; when another process holds it, runs the command (it says who
# waits for what; its output goes to stderr) and waits. Children that must
# not hold the lock close <fd> (`9>&-`).

wait_for_lock() {
  local fd=$1 file=$2
  shift 2
  mkdir -p "$(dirname "$file")"
  eval "exec $fd>\"\$file\""
  if ! flock -n "$fd"; then
    "$@" >&2
    flock "$fd"
  fi
}
