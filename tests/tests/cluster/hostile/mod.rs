//! Hostile and careless tenants: input that the API server must refuse, the
//! operator must stall on or survive, and the plugin must show without
//! letting it reach an admin's terminal raw. One file per class of input.

mod failures;
mod network_policy;
mod specs;
mod status;
mod terminal;
