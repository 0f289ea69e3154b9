//! Pure diff of two statuses into the Events that describe the transition.
