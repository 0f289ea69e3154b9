//! Events, one file per job, all pure: [`diff`] turns the stored and the new
//! status into transitions, [`announcement`] names them so that each is
//! published exactly once, [`object`] makes each an events.k8s.io Event.
//! Sending them is the controller's (`controller/publish.rs`).

pub mod announcement;
pub mod diff;
pub mod object;

pub use diff::{Action, EventType, MAX_NOTE_BYTES, Reason, Transition, transitions};
