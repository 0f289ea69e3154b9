//! Pure projection of a runtime's status.
