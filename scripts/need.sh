# shellcheck shell=bash
# Sourced by the scripts that need system packages:
#   need <command> <Debian package>   installs the package when the command is missing
#   apt_install <Debian package>...   installs packages
# with apt (as root, or through sudo); where that cannot work, says in one
# line what to install and exits.

apt_install() {
  local sudo=""
  if [ "$(id -u)" -ne 0 ]; then
    command -v sudo >/dev/null && sudo=sudo
  fi
  if ! command -v apt-get >/dev/null || { [ "$(id -u)" -ne 0 ] && [ -z "$sudo" ]; }; then
    echo "$(basename "$0"): missing, please install: $* (Debian packages)" >&2
    exit 1
  fi
  echo "$(basename "$0"): installing $*" >&2
  $sudo apt-get update -qq >&2
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "$@" >&2
}

need() {
  command -v "$1" >/dev/null || apt_install "$2"
}
