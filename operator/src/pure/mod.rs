//! The pure core: decisions from what was observed, no I/O (no client, no
//! clock but the one passed in). Everything here is unit-tested without a
//! cluster.

pub mod backoff;
pub mod config;
pub mod drift;
pub mod events;
pub mod lenient;
pub mod ownership;
pub mod references;
pub mod resources;
pub mod reverted;
pub mod status;
pub mod turns;
