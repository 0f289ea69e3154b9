//! The TrussiumRuntime API as the API server serves it: what its schema and
//! CEL rules refuse and accept (the manifests of `tests/fixtures/`), and
//! what kubectl shows of it.

pub(crate) mod support;

mod kubectl;
mod validation;
mod versions;
