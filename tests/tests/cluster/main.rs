//! Cluster tests: real behaviour against the local control plane
//! (`make test`, or `make cluster-up` then
//! `cargo test -p trussium-e2e --test cluster -- --include-ignored [filter]`).
//!
//! One test binary, so that every test can run in parallel with every other
//! (each has its own namespace, and its own operator where it needs one);
//! cargo runs separate test binaries one after another.
//!
//! One folder per area (`api`, `operator`, `plugin`, `status`, `platform`,
//! `hostile`), each with its own `support.rs` where it needs one; a filter
//! such as `operator::` runs one area.

mod api;
mod hostile;
mod operator;
mod platform;
mod plugin;
mod status;
