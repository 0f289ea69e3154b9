//! The one way the controller's bookkeeping takes a lock.

use std::sync::{Mutex, MutexGuard};

/// Locks a mutex of the shell's bookkeeping. Nothing holding one of these
/// locks can leave its map half-changed, so a poisoned lock is still good.
pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
