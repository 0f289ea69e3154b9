//! The status and Events the operator reports, step by step, against the
//! exact status each settled step must show: a runtime's life, upgrades,
//! degraded states, Events, and the snapshots the GitOps checks read.

mod support;

mod degraded;
mod events;
mod gitops;
mod lifecycle;
mod suspended;
mod upgrade;
