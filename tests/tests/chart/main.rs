//! The Helm chart (`charts/trussium-operator/`) with real Helm (built from its
//! Go module by `scripts/tool.sh helm`): the install surfaces render the same
//! objects, the values table and generated copies are current, bad values
//! are refused before anything is applied, the alerts pass `promtool test
//! rules`, and `helm install`/`upgrade`/`uninstall` against the local cluster
//! give a working operator and keep the CRD.
//!
//! A test binary of its own: cargo runs test binaries one after another, so
//! the cluster-wide operators and the CRD changes of these tests never meet
//! the other cluster tests; within it, [`support::one_at_a_time`] keeps the
//! cluster tests apart.

mod alerts;
mod install;
mod package;
mod readme;
mod support;
mod surfaces;
mod values;
