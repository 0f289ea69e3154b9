//! The Trussium operator: turns each TrussiumRuntime into its owned objects and
//! reports honest status.
