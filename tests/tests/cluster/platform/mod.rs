//! The platform around the operator: the local control plane itself, its
//! Kubernetes version, faults the operator survives, a namespace deleted
//! under it, Pod Security admission, and the soak tool's refusal of bad
//! settings.

mod control_plane;
mod faults;
mod kubernetes;
mod namespace_deletion;
mod pod_security;
mod soak_bad_input;
