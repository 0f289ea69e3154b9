# shellcheck shell=bash
# Sourced by the scripts that need system packages:
#   need <command> <Debian package>   installs the package when the command is missing
#   need_for_checks                   installs what make lint and make test use
#   need_for_demo                     installs what make demo uses
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

# need_all COMMAND=PACKAGE...: the packages of the missing commands, all
# in one apt run.
need_all() {
  local missing=() pair
  for pair in "$@"; do
    command -v "${pair%%=*}" >/dev/null || missing+=("${pair#*=}")
  done
  [ "${#missing[@]}" -gt 0 ] || return 0
  # libc6-dev comes with gcc's recommends; ask for it so that linking works.
  # shellcheck disable=SC2046 # one package a word
  apt_install $(printf '%s\n' "${missing[@]}" | sort -u) libc6-dev ca-certificates
}

# The commands make lint and make test use that a fresh Debian lacks, all
# installed in one apt run (CI's first step; make test's too, so that a
# missing one shows there).
need_for_checks() {
  # cc: the Rust linker driver, and C code of some crates. buildah, jq,
  # runc, umoci: the operator image, its SBOM referrers and the container
  # test (make image, make release, make test).
  need_all make=make openssl=openssl cc=gcc setsid=util-linux awk=mawk \
    base64=coreutils sha256sum=coreutils \
    buildah=buildah jq=jq runc=runc umoci=umoci
}

# What make demo runs besides the Go and Rust toolchains: openssl for the
# cluster's certificates, a C linker for cargo, setsid for the components.
need_for_demo() {
  need_all openssl=openssl cc=gcc setsid=util-linux
}
