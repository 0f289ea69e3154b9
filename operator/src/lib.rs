//! The Trussium operator: turns each TrussiumRuntime into its owned objects and
//! reports honest status.
//!
//! Functional core, thin shell: [`resources`] builds every owned object,
//! [`status`] projects the status, [`events`] diffs two statuses into Events
//! and [`announcement`] names them so that each is published exactly once,
//! all as pure functions; [`controller`] only fetches, applies, writes status
//! and publishes.

pub mod announcement;
pub mod config;
pub mod controller;
pub mod endpoints;
pub mod events;
pub mod health;
pub mod leader;
pub mod metrics;
pub mod references;
pub mod resources;
pub mod status;
