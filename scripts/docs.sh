#!/usr/bin/env bash
# make docs: builds the manual (docs/src, with mdBook pinned in
# tools/mdbook.crate) into target/docs, then checks it with docs/tool: every
# internal link and anchor of the site and of the README, and the flags,
# condition types and reasons every page names (they must be the code's).
# The generated pages' staleness is a test (make generate rewrites them).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
# shellcheck source=progress.sh
source scripts/progress.sh

mdbook=$(scripts/tool.sh mdbook)
rm -rf target/docs
logged target/docs-build.log "$mdbook" build docs
cargo run --quiet -p trussium-docs -- check target/docs
echo "docs: built and checked; open target/docs/index.html" >&2
