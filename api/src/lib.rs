//! The `TrussiumRuntime` API (group `runtime.trussium.io`, version `v1beta1`;
//! `v1alpha1` served, deprecated, with the same schema), shared by the
//! operator and the `kubectl trussium` plugin.

pub mod crd;
pub mod duration;
pub mod image;
pub mod kubernetes;
pub mod labels;
pub mod operator;
pub mod pod_security;
pub mod restart;
pub mod runtime;
pub mod status;
pub mod suspension;
pub mod validation;

pub use runtime::*;
pub use status::{ConditionStatus, TrussiumRuntimeStatus, condition_type, reason};
