//! The I/O edges: the controller that watches and writes, the Lease, the
//! probe and metrics endpoints, the API server's version. Each decides
//! through [`crate::pure`] and only carries out.

pub mod controller;
pub mod endpoints;
pub mod kubernetes_version;
pub mod leader;
pub mod metrics;
pub mod probes;
