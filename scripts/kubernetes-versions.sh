# shellcheck shell=bash
# Sourced by the test cluster's scripts: the supported Kubernetes versions
# from kubernetes-versions.txt (the one place that states them).
#   kubernetes_minors          the supported minors, oldest first
#   kubernetes_oldest / kubernetes_newest
#   kubernetes_patch <minor>   the patch release pinned for that minor
#   kubernetes_check <minor>   fails, naming the supported ones, for any other

kubernetes_versions_file=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/kubernetes-versions.txt

kubernetes_minors() { awk '!/^#/ && NF { print $1 }' "$kubernetes_versions_file"; }
kubernetes_oldest() { kubernetes_minors | head -n 1; }
kubernetes_newest() { kubernetes_minors | tail -n 1; }
# (`m ""`: compared as strings, so 1.340 is not 1.34.)
kubernetes_patch() { awk -v m="$1" '!/^#/ && $1 == m "" { print $2 }' "$kubernetes_versions_file"; }

kubernetes_check() {
  if [ -z "$(kubernetes_patch "$1")" ]; then
    echo "KUBERNETES_VERSION=$1 is not supported; the supported minors are: $(kubernetes_minors | paste -sd' ') (kubernetes-versions.txt)" >&2
    return 1
  fi
}
