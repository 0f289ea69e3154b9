//! The operator against the API server: what it builds and keeps (drift,
//! resources, Secrets, NetworkPolicies, images, autoscaling), what it costs
//! (requests, its caches), its deadlines, leader election and probes, and
//! its permissions (a Role alone, what it may read).

pub(crate) mod support;

mod autoscaling;
mod cache;
mod deadlines;
mod drift;
mod image;
mod leader;
mod network_policy;
mod probes;
mod requests;
mod resources;
mod secrets;
mod security;
mod single_namespace;
mod turns;
