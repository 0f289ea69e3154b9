//! Rollouts the operator itself causes take turns.
//!
//! When a release changes what the operator puts in a pod template (a
//! label, a probe, a security setting), every runtime's Deployment would
//! roll at once on the upgrade. Such rollouts wait for a turn instead: at
//! most `--max-concurrent-rollouts` run at a time, in the order of
//! namespace and name, each holding its turn until its Deployment is
//! available again. A rollout its owner asked for (a spec change, a
//! restart, a rotated Secret) never waits, nor does putting back a template
//! someone else changed.
//!
//! Pure: [`cause`] tells why applying would roll pods, [`Turns`] keeps the
//! turns; the reconcile asks, and applies a waiting runtime's Deployment
//! with the pod template it runs (so a scale still goes through).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use k8s_openapi::api::apps::v1::Deployment;
use serde_json::Value;
use trussium_api::TrussiumRuntime;
use trussium_api::restart::RESTARTED_AT;

use crate::pure::drift::{differs_at, drifted};
use crate::pure::resources::{APPLIED_FROM_ANNOTATION, CONFIG_HASH_ANNOTATION};

/// Why applying the desired Deployment over the observed one would roll the
/// runtime's pods, if it would.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cause {
    /// The pod template stays as it is.
    NoRoll,
    /// The owner asked for it: what of the owner's the pods are built from
    /// (the spec, a restart, a rotated Secret) changed since the
    /// Deployment was last applied.
    Owner,
    /// Someone else changed the template; the apply puts it back.
    Repair,
    /// Only the operator changed: an upgrade that builds another template
    /// from the same spec. This one takes turns.
    Operator,
}

/// Why applying `desired` over `observed` would roll `rt`'s pods.
///
/// The template compares by containment (as drift does: what the API
/// server defaults is not a difference); a field the operator stops
/// setting is not seen here and rolls without waiting.
pub fn cause(rt: &TrussiumRuntime, desired: &Deployment, observed: &Deployment) -> Cause {
    let template = |d: &Deployment| {
        d.spec
            .as_ref()
            .and_then(|s| serde_json::to_value(&s.template).ok())
            .unwrap_or(Value::Null)
    };
    let (want, have) = (template(desired), template(observed));
    if differs_at(&want, &have).is_none() {
        return Cause::NoRoll;
    }
    if drifted(desired, observed) {
        return Cause::Repair;
    }
    let from = |d: &Deployment| {
        d.metadata
            .annotations
            .as_ref()?
            .get(APPLIED_FROM_ANNOTATION)
            .cloned()
    };
    let asked = match from(observed) {
        Some(applied) => from(desired) != Some(applied),
        // A Deployment of a release before the stamp: the spec read since,
        // the restart and the configuration (with the Secrets' versions)
        // tell as well as they can.
        None => {
            let annotation = |t: &Value, key: &str| {
                t.pointer(&format!("/metadata/annotations/{}", key.replace('/', "~1")))
                    .cloned()
            };
            rt.status.as_ref().and_then(|s| s.observed_generation) != rt.metadata.generation
                || annotation(&want, RESTARTED_AT) != annotation(&have, RESTARTED_AT)
                || annotation(&want, CONFIG_HASH_ANNOTATION)
                    != annotation(&have, CONFIG_HASH_ANNOTATION)
        }
    };
    if asked { Cause::Owner } else { Cause::Operator }
}

/// A runtime, by namespace and name: the order turns are given in.
pub type Key = (String, String);

/// How a Deployment given a turn is doing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnState {
    /// Still rolling: it keeps its turn.
    Rolling,
    /// Every replica it asks for runs the new template and is available:
    /// the turn passes on.
    Available,
    /// Its rollout failed (progress deadline exceeded). It keeps its turn,
    /// so a template that fails everywhere stops at the first few runtimes
    /// instead of reaching them all; a change of its own spec or a restart
    /// frees it.
    Failed,
    /// The runtime or its Deployment is gone: the turn passes on.
    Gone,
}

/// How the Deployment `d` is doing with the template applied on the turn
/// `given`: rolling until a later generation of the same Deployment shows
/// the apply landed; a Deployment made afresh since (deleted, or its
/// runtime made anew) is another one, and the turn passes on.
pub fn progress(d: Option<&Deployment>, given: &Given) -> TurnState {
    let Some(d) = d else {
        return TurnState::Gone;
    };
    if d.metadata.uid != given.deployment_uid {
        return TurnState::Gone;
    }
    if d.metadata.generation <= given.deployment_generation {
        return TurnState::Rolling;
    }
    let status = d.status.clone().unwrap_or_default();
    let failed = status.conditions.iter().flatten().any(|c| {
        c.type_ == "Progressing"
            && c.status == "False"
            && c.reason.as_deref() == Some("ProgressDeadlineExceeded")
    });
    if status.observed_generation < d.metadata.generation {
        return TurnState::Rolling;
    }
    let wanted = d.spec.as_ref().and_then(|s| s.replicas).unwrap_or(1);
    let updated = status.updated_replicas.unwrap_or(0);
    let available = status.available_replicas.unwrap_or(0);
    let total = status.replicas.unwrap_or(0);
    if updated >= wanted && available >= wanted && total <= updated {
        TurnState::Available
    } else if failed {
        TurnState::Failed
    } else {
        TurnState::Rolling
    }
}

/// A turn given: what the owner had asked for then (a new runtime,
/// generation or restart means the owner took over, and the turn passes
/// on), and the Deployment before the apply.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Given {
    pub uid: Option<String>,
    pub generation: Option<i64>,
    pub restarted_at: Option<String>,
    pub deployment_uid: Option<String>,
    pub deployment_generation: Option<i64>,
}

impl Given {
    pub fn of(rt: &TrussiumRuntime, observed: &Deployment) -> Self {
        Given {
            uid: rt.metadata.uid.clone(),
            generation: rt.metadata.generation,
            restarted_at: trussium_api::restart::restarted_at(&rt.metadata).map(str::to_string),
            deployment_uid: observed.metadata.uid.clone(),
            deployment_generation: observed.metadata.generation,
        }
    }

    fn same_owner_ask(&self, other: &Given) -> bool {
        self.uid == other.uid
            && self.generation == other.generation
            && self.restarted_at == other.restarted_at
    }
}

/// What a runtime that needs a turn is told.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Apply now.
    Go,
    /// Wait: `ahead` runtimes are before it in the queue, `rolling` hold the
    /// turns (of which `failed` failed to become available).
    Wait(Waiting),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub ahead: usize,
    pub rolling: usize,
    pub failed: Vec<Key>,
    pub max: usize,
}

impl Waiting {
    /// When to ask again: soon for the runtimes near the front of the
    /// queue, less often for the rest of a long one (each asking costs a
    /// reconcile, without a request).
    pub fn ask_again_in(&self) -> Duration {
        if self.ahead < self.max * NEAR_THE_FRONT {
            NEXT_IN_LINE
        } else {
            FURTHER_BACK
        }
    }
}

/// Runtimes within this many turns of the front ask again soon.
const NEAR_THE_FRONT: usize = 10;
const NEXT_IN_LINE: Duration = Duration::from_secs(5);
const FURTHER_BACK: Duration = Duration::from_secs(30);

/// How long after the first runtime asks no turn is given, so that the
/// runtimes the operator reconciles on start all queue first and the order
/// is namespace and name, not whichever came first.
pub const SETTLE: Duration = Duration::from_secs(5);

/// A queued runtime that has not asked again for this long no longer needs
/// a turn (its change was applied some other way, or it was deleted while
/// the operator was not looking).
const FORGOTTEN: Duration = Duration::from_secs(120);

/// The turns: who holds one, who waits.
#[derive(Debug)]
pub struct Turns {
    max: usize,
    holding: BTreeMap<Key, Given>,
    /// Each waiting runtime, and when it last asked.
    waiting: BTreeMap<Key, Instant>,
    /// When the first runtime asked.
    opened: Option<Instant>,
}

impl Turns {
    pub fn new(max: usize) -> Self {
        Turns {
            max: max.max(1),
            holding: BTreeMap::new(),
            waiting: BTreeMap::new(),
            opened: None,
        }
    }

    /// `key` needs a turn to roll; `given` is what its owner asks for now,
    /// `progress` how the Deployment of a runtime holding a turn is doing
    /// (see [`progress`]), `exists` whether a runtime is still there (a
    /// deleted one stops waiting at once).
    pub fn ask(
        &mut self,
        key: &Key,
        given: Given,
        now: Instant,
        progress: impl Fn(&Key, &Given) -> TurnState,
        exists: impl Fn(&Key) -> bool,
    ) -> Turn {
        self.pass_on(&progress);
        self.waiting.retain(|k, _| k == key || exists(k));
        if self.holding.contains_key(key) {
            // Given before; the apply did not land yet (or failed): again.
            return Turn::Go;
        }
        self.waiting.insert(key.clone(), now);
        self.waiting
            .retain(|_, asked| now.saturating_duration_since(*asked) < FORGOTTEN);
        let opened = *self.opened.get_or_insert(now);
        let settled = now.saturating_duration_since(opened) >= SETTLE;
        let free = self.max.saturating_sub(self.holding.len());
        let ahead = self.waiting.range(..key.clone()).count();
        if settled && ahead < free {
            self.waiting.remove(key);
            self.holding.insert(key.clone(), given);
            return Turn::Go;
        }
        let failed = self
            .holding
            .iter()
            .filter(|(k, g)| progress(k, g) == TurnState::Failed)
            .map(|(k, _)| k.clone())
            .collect();
        Turn::Wait(Waiting {
            ahead,
            rolling: self.holding.len(),
            failed,
            max: self.max,
        })
    }

    /// `key` needs no turn now (nothing to roll, or its owner asked for
    /// the rollout): it leaves the queue. A turn it holds is kept until its
    /// Deployment is available, unless its owner took over (`given`
    /// changed).
    pub fn not_needed(&mut self, key: &Key, given: &Given) {
        self.waiting.remove(key);
        if self
            .holding
            .get(key)
            .is_some_and(|held| !held.same_owner_ask(given))
        {
            self.holding.remove(key);
        }
    }

    /// The runtime is gone: it neither waits nor holds a turn.
    pub fn forget(&mut self, key: &Key) {
        self.waiting.remove(key);
        self.holding.remove(key);
    }

    /// How many wait and how many hold a turn.
    #[cfg(test)]
    pub fn counts(&self) -> (usize, usize) {
        (self.waiting.len(), self.holding.len())
    }

    fn pass_on(&mut self, progress: &impl Fn(&Key, &Given) -> TurnState) {
        self.holding
            .retain(|k, g| !matches!(progress(k, g), TurnState::Available | TurnState::Gone));
    }
}

#[cfg(test)]
mod tests;
