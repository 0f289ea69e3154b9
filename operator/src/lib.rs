//! The Trussium operator: turns each TrussiumRuntime into its owned objects and
//! reports honest status.
//!
//! Functional core, thin shell: [`resources`] builds every owned object,
//! [`drift`] and [`ownership`] decide whether and how an observed object must
//! be applied again, [`backoff`] how soon when another writer keeps changing
//! it, [`status`] projects the status, [`events`] diffs two statuses into
//! transitions, names them so that each is published exactly once and turns
//! them into Events, all as pure functions; [`controller`] only watches,
//! applies, writes status and publishes.

pub mod backoff;
pub mod cli;
pub mod config;
pub mod controller;
pub mod drift;
pub mod endpoints;
pub mod events;
pub mod kubernetes_version;
pub mod leader;
pub mod lenient;
pub mod metrics;
pub mod ownership;
pub mod probes;
pub mod references;
pub mod resources;
pub mod reverted;
pub mod status;
pub mod turns;
