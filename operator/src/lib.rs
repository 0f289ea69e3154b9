//! The Trussium operator: turns each TrussiumRuntime into its owned objects and
//! reports honest status.
//!
//! Functional core, thin shell, in two places:
//!
//! - [`pure`]: what the operator wants and what it reports, as functions of
//!   what it has seen, without I/O. [`pure::resources`] builds every owned
//!   object, [`pure::drift`] and [`pure::ownership`] decide whether and how
//!   an observed object must be applied again, [`pure::backoff`] how soon
//!   when another writer keeps changing it, [`pure::turns`] which rollouts an
//!   upgrade causes may go, [`pure::status`] projects the status,
//!   [`pure::events`] diffs two statuses into transitions, names them so that
//!   each is published exactly once and turns them into Events.
//! - [`shell`]: the I/O. [`shell::controller`] only watches, applies, writes
//!   status and publishes; [`shell::leader`] holds the Lease,
//!   [`shell::endpoints`] serves the probes and metrics.
//!
//! [`cli`] is the command line `main.rs` reads.

pub mod cli;
pub mod pure;
pub mod shell;
