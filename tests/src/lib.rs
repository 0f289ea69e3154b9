//! Support shared by the cluster tests.
