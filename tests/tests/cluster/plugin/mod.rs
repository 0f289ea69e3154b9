//! `kubectl trussium` through the real kubectl: against runtimes put into
//! known states by writing their status (`known_states`), against the
//! operator's converged runtimes (`converged`, `history`, `create`), its `install`
//! command, and the release bundle it ships in (`release`, `krew`).

mod support;

mod converged;
mod create;
mod diagnose;
mod history;
mod install;
mod known_states;
mod krew;
mod kubectl_flags;
mod logs;
mod release;
mod restart;
mod signing;
