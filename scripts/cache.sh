# shellcheck shell=bash
# Sourced by the scripts that build once per machine into the shared cache
# (the control plane, krew, tools, the cross toolchains and target dir), and
# by tests/cluster/env.sh. Sets TRUSSIUM_CACHE: the caller's, else
# $XDG_CACHE_HOME/trussium, else ~/.cache/trussium.

TRUSSIUM_CACHE=${TRUSSIUM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/trussium}
