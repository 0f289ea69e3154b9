//! What the soak does, step by step, decided by the seed alone.
//!
//! A model of what the soak has made (namespaces, their Secrets and their
//! runtimes as specified) and a seeded choice of each next step among those
//! that keep the churn bounded: at most [`NAMESPACES`] namespaces of at most
//! [`RUNTIMES_PER_NAMESPACE`] runtimes. Faults and checkpoints come at
//! steps drawn from the seed too, so a seed replays the same steps in the
//! same order (`SOAK_SEED=`); only the time each takes differs.

use std::collections::BTreeMap;

use rand::rngs::Xoshiro256PlusPlus;
use rand::{RngExt, SeedableRng};

/// Namespaces alive at a time (one may be deleted and replaced).
pub const NAMESPACES: usize = 3;
pub const RUNTIMES_PER_NAMESPACE: usize = 6;
/// The Secrets of every namespace; a runtime references one or none.
pub const SECRETS: [&str; 2] = ["credentials-a", "credentials-b"];
/// Images every runtime may run; the never-ready one is [`Image::NeverReady`].
pub const TAGS: [&str; 3] = ["v1.22.0", "v1.23.0", "v1.24.0"];
pub const MAX_REPLICAS: i32 = 3;

/// A runtime's image: a released tag, or one whose pods never get ready.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Image {
    Tag(&'static str),
    NeverReady,
}

/// The parts of a runtime's spec the soak changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RuntimeSpec {
    pub image: Image,
    pub replicas: i32,
    pub autoscaling: bool,
    pub network_policy: bool,
    pub secret: Option<&'static str>,
}

/// One change the soak makes to the cluster. Namespaces are numbered in the
/// order the soak creates them; runtimes are named `soak-<n>`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Operation {
    CreateNamespace {
        namespace: usize,
    },
    DeleteNamespace {
        namespace: usize,
    },
    CreateRuntime {
        namespace: usize,
        name: String,
        spec: RuntimeSpec,
    },
    DeleteRuntime {
        namespace: usize,
        name: String,
    },
    SetImage {
        namespace: usize,
        name: String,
        image: Image,
    },
    Scale {
        namespace: usize,
        name: String,
        replicas: i32,
    },
    SetAutoscaling {
        namespace: usize,
        name: String,
        enabled: bool,
    },
    SetNetworkPolicy {
        namespace: usize,
        name: String,
        enabled: bool,
    },
    /// A new value.
    RotateSecret {
        namespace: usize,
        secret: &'static str,
    },
    DeleteSecret {
        namespace: usize,
        secret: &'static str,
    },
    CreateSecret {
        namespace: usize,
        secret: &'static str,
    },
}

impl Operation {
    /// The kind of operation, for the summary.
    pub fn kind(&self) -> &'static str {
        match self {
            Operation::CreateNamespace { .. } => "namespace created",
            Operation::DeleteNamespace { .. } => "namespace deleted",
            Operation::CreateRuntime { .. } => "runtime created",
            Operation::DeleteRuntime { .. } => "runtime deleted",
            Operation::SetImage {
                image: Image::NeverReady,
                ..
            } => "upgrade to never-ready",
            Operation::SetImage { .. } => "upgrade",
            Operation::Scale { replicas: 0, .. } => "scale to zero",
            Operation::Scale { .. } => "scale",
            Operation::SetAutoscaling { .. } => "autoscaling toggled",
            Operation::SetNetworkPolicy { .. } => "network policy toggled",
            Operation::RotateSecret { .. } => "Secret rotated",
            Operation::DeleteSecret { .. } => "Secret deleted",
            Operation::CreateSecret { .. } => "Secret recreated",
        }
    }
}

/// A fault injected into the operator's world.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    /// Every connection of both replicas to the API server closed at once
    /// (watches, the Lease, requests in flight), as when a load balancer or
    /// an API server drops them.
    CutConnections,
    /// `kill -9` of the leader: no goodbye, the Lease expires.
    KillLeader,
    /// SIGTERM of the leader: it finishes what it does and hands over.
    StopLeader,
}

impl Fault {
    pub fn kind(self) -> &'static str {
        match self {
            Fault::CutConnections => "connections cut",
            Fault::KillLeader => "leader killed (-9)",
            Fault::StopLeader => "leader stopped (TERM)",
        }
    }
}

/// What to do at one step.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Operation(Operation),
    Fault(Fault),
    /// Stop changing things, let everything settle, check every invariant.
    Checkpoint,
}

/// How often each scheduled thing comes, in steps, for a soak of `steps`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Every {
    failover: u64,
    /// Steps at the end without a failover.
    quiet_tail: u64,
    cut: u64,
    namespace_deletion: u64,
    checkpoint: u64,
}

impl Every {
    /// A short soak still sees each of them; a long one sees failovers every
    /// few minutes, a cut every two and a checkpoint every five (a step is
    /// about a second). A soak of 20 minutes or more has no failover in its
    /// last third (at most 15 minutes): a replica's memory is judged once it
    /// has led for five minutes after its warm-up, which a leader killed
    /// every few minutes never does.
    fn for_steps(steps: u64) -> Every {
        Every {
            failover: (steps / 3).clamp(45, 240),
            quiet_tail: if steps >= 1200 {
                (steps / 3).min(900)
            } else {
                0
            },
            cut: (steps / 6).clamp(20, 120),
            namespace_deletion: (steps / 2).clamp(60, 600),
            checkpoint: (steps / 2).clamp(60, 300),
        }
    }
}

#[derive(Clone, Debug, Default)]
struct Namespace {
    runtimes: BTreeMap<String, RuntimeSpec>,
    /// Whether each Secret exists now.
    secrets: BTreeMap<&'static str, bool>,
}

/// The seeded plan of a soak of `steps` steps.
pub struct Plan {
    rng: Xoshiro256PlusPlus,
    every: Every,
    steps: u64,
    step: u64,
    next_failover: u64,
    kill_next: bool,
    next_cut: u64,
    next_namespace_deletion: u64,
    next_checkpoint: u64,
    namespaces: BTreeMap<usize, Namespace>,
    created_namespaces: usize,
    created_runtimes: usize,
}

impl Plan {
    pub fn new(seed: u64, steps: u64) -> Plan {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
        let every = Every::for_steps(steps);
        let kill_next = rng.random_bool(0.5);
        let mut plan = Plan {
            rng,
            every,
            steps,
            step: 0,
            next_failover: 0,
            kill_next,
            next_cut: 0,
            next_namespace_deletion: 0,
            next_checkpoint: every.checkpoint,
            namespaces: BTreeMap::new(),
            created_namespaces: 0,
            created_runtimes: 0,
        };
        plan.next_failover = plan.after(every.failover);
        plan.next_cut = plan.after(every.cut);
        plan.next_namespace_deletion = plan.after(every.namespace_deletion);
        plan
    }

    /// Steps of the whole soak.
    pub fn steps(&self) -> u64 {
        self.steps
    }

    /// `every` steps from now, give or take a quarter.
    fn after(&mut self, every: u64) -> u64 {
        let jitter = every / 4;
        self.step + self.rng.random_range(every - jitter..=every + jitter)
    }

    /// The next step, or `None` when the soak is over. Faults and
    /// checkpoints come between operations, never instead of one.
    pub fn next(&mut self) -> Option<Step> {
        if self.step >= self.steps {
            return None;
        }
        if self.step >= self.next_checkpoint {
            self.next_checkpoint = self.step + self.every.checkpoint;
            return Some(Step::Checkpoint);
        }
        if self.step >= self.next_failover && self.step < self.steps - self.every.quiet_tail {
            self.next_failover = self.after(self.every.failover);
            let fault = if self.kill_next {
                Fault::KillLeader
            } else {
                Fault::StopLeader
            };
            self.kill_next = !self.kill_next;
            return Some(Step::Fault(fault));
        }
        if self.step >= self.next_cut {
            self.next_cut = self.after(self.every.cut);
            return Some(Step::Fault(Fault::CutConnections));
        }
        self.step += 1;
        Some(Step::Operation(self.operation()))
    }

    fn operation(&mut self) -> Operation {
        if self.namespaces.len() < NAMESPACES {
            return self.create_namespace();
        }
        if self.step >= self.next_namespace_deletion {
            self.next_namespace_deletion = self.after(self.every.namespace_deletion);
            let namespace = self.pick_namespace();
            self.namespaces.remove(&namespace);
            return Operation::DeleteNamespace { namespace };
        }
        loop {
            let namespace = self.pick_namespace();
            let choice = self.rng.random_range(0..100);
            if let Some(operation) = self.try_operation(namespace, choice) {
                return operation;
            }
        }
    }

    fn create_namespace(&mut self) -> Operation {
        let namespace = self.created_namespaces;
        self.created_namespaces += 1;
        let secrets = SECRETS.iter().map(|s| (*s, true)).collect();
        self.namespaces.insert(
            namespace,
            Namespace {
                runtimes: BTreeMap::new(),
                secrets,
            },
        );
        Operation::CreateNamespace { namespace }
    }

    fn pick_namespace(&mut self) -> usize {
        let keys: Vec<usize> = self.namespaces.keys().copied().collect();
        keys[self.rng.random_range(0..keys.len())]
    }

    /// The operation `choice` (0..100) stands for in `namespace`, if it can
    /// be done there now; applied to the model.
    fn try_operation(&mut self, namespace: usize, choice: u32) -> Option<Operation> {
        let runtimes: Vec<String> = self
            .namespaces
            .get(&namespace)?
            .runtimes
            .keys()
            .cloned()
            .collect();
        let count = runtimes.len();
        let some_runtime = (!runtimes.is_empty())
            .then(|| runtimes[self.rng.random_range(0..runtimes.len())].clone());
        match choice {
            0..15 if count < RUNTIMES_PER_NAMESPACE => {
                let name = format!("soak-{}", self.created_runtimes);
                self.created_runtimes += 1;
                let spec = self.new_spec();
                self.ns(namespace).runtimes.insert(name.clone(), spec);
                Some(Operation::CreateRuntime {
                    namespace,
                    name,
                    spec,
                })
            }
            15..21 => {
                let name = some_runtime?;
                self.ns(namespace).runtimes.remove(&name);
                Some(Operation::DeleteRuntime { namespace, name })
            }
            21..41 => {
                let name = some_runtime?;
                let current = self.ns(namespace).runtimes.get(&name)?.image;
                // One in five to the never-ready image; from it, always back.
                let image = if current != Image::NeverReady && self.rng.random_bool(0.2) {
                    Image::NeverReady
                } else {
                    let others: Vec<&'static str> = TAGS
                        .into_iter()
                        .filter(|t| Image::Tag(t) != current)
                        .collect();
                    Image::Tag(others[self.rng.random_range(0..others.len())])
                };
                self.spec(namespace, &name)?.image = image;
                Some(Operation::SetImage {
                    namespace,
                    name,
                    image,
                })
            }
            41..57 => {
                let name = some_runtime?;
                let current = self.ns(namespace).runtimes.get(&name)?.replicas;
                let replicas = loop {
                    let r = self.rng.random_range(0..=MAX_REPLICAS);
                    if r != current {
                        break r;
                    }
                };
                self.spec(namespace, &name)?.replicas = replicas;
                Some(Operation::Scale {
                    namespace,
                    name,
                    replicas,
                })
            }
            57..67 => {
                let name = some_runtime?;
                let spec = self.spec(namespace, &name)?;
                spec.autoscaling = !spec.autoscaling;
                let enabled = spec.autoscaling;
                Some(Operation::SetAutoscaling {
                    namespace,
                    name,
                    enabled,
                })
            }
            67..73 => {
                let name = some_runtime?;
                let spec = self.spec(namespace, &name)?;
                spec.network_policy = !spec.network_policy;
                let enabled = spec.network_policy;
                Some(Operation::SetNetworkPolicy {
                    namespace,
                    name,
                    enabled,
                })
            }
            73..100 => {
                let secret = SECRETS[self.rng.random_range(0..SECRETS.len())];
                let exists = *self.ns(namespace).secrets.get(secret)?;
                match (exists, choice) {
                    (true, 73..88) => Some(Operation::RotateSecret { namespace, secret }),
                    (true, _) => {
                        self.ns(namespace).secrets.insert(secret, false);
                        Some(Operation::DeleteSecret { namespace, secret })
                    }
                    (false, _) => {
                        self.ns(namespace).secrets.insert(secret, true);
                        Some(Operation::CreateSecret { namespace, secret })
                    }
                }
            }
            _ => None,
        }
    }

    fn new_spec(&mut self) -> RuntimeSpec {
        let secret = match self.rng.random_range(0..3) {
            0 => None,
            i => Some(SECRETS[i - 1]),
        };
        RuntimeSpec {
            image: Image::Tag(TAGS[self.rng.random_range(0..TAGS.len())]),
            replicas: self.rng.random_range(1..=MAX_REPLICAS),
            autoscaling: self.rng.random_bool(0.2),
            network_policy: self.rng.random_bool(0.3),
            secret,
        }
    }

    fn ns(&mut self, namespace: usize) -> &mut Namespace {
        self.namespaces.entry(namespace).or_default()
    }

    fn spec(&mut self, namespace: usize, name: &str) -> Option<&mut RuntimeSpec> {
        self.namespaces.get_mut(&namespace)?.runtimes.get_mut(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all(seed: u64, steps: u64) -> Vec<Step> {
        let mut plan = Plan::new(seed, steps);
        std::iter::from_fn(|| plan.next()).collect()
    }

    #[test]
    fn a_seed_replays_the_same_steps() {
        assert_eq!(all(42, 1800), all(42, 1800));
        assert_ne!(all(42, 1800), all(43, 1800));
    }

    #[test]
    fn the_churn_stays_bounded_and_every_step_is_possible() -> Result<(), String> {
        for seed in 0..20 {
            let mut alive: BTreeMap<usize, (usize, BTreeMap<&str, bool>)> = BTreeMap::new();
            let mut runtimes: BTreeMap<String, usize> = BTreeMap::new();
            for step in all(seed, 1800) {
                let Step::Operation(op) = step else { continue };
                match op {
                    Operation::CreateNamespace { namespace } => {
                        let secrets = SECRETS.iter().map(|s| (*s, true)).collect();
                        assert!(alive.insert(namespace, (0, secrets)).is_none());
                    }
                    Operation::DeleteNamespace { namespace } => {
                        assert!(alive.remove(&namespace).is_some());
                        runtimes.retain(|_, ns| *ns != namespace);
                    }
                    Operation::CreateRuntime {
                        namespace, name, ..
                    } => {
                        assert!(alive.contains_key(&namespace));
                        assert!(runtimes.insert(name, namespace).is_none());
                    }
                    Operation::DeleteRuntime { namespace, name } => {
                        assert_eq!(runtimes.remove(&name), Some(namespace));
                    }
                    Operation::SetImage {
                        namespace, name, ..
                    }
                    | Operation::Scale {
                        namespace, name, ..
                    }
                    | Operation::SetAutoscaling {
                        namespace, name, ..
                    }
                    | Operation::SetNetworkPolicy {
                        namespace, name, ..
                    } => {
                        assert_eq!(runtimes.get(&name), Some(&namespace), "{name}");
                    }
                    Operation::RotateSecret {
                        namespace, secret, ..
                    }
                    | Operation::DeleteSecret { namespace, secret } => {
                        let secrets = &mut alive.get_mut(&namespace).ok_or("gone")?.1;
                        assert_eq!(secrets.get(secret), Some(&true));
                        if matches!(op, Operation::DeleteSecret { .. }) {
                            secrets.insert(secret, false);
                        }
                    }
                    Operation::CreateSecret { namespace, secret } => {
                        let secrets = &mut alive.get_mut(&namespace).ok_or("gone")?.1;
                        assert_eq!(secrets.insert(secret, true), Some(false));
                    }
                }
                assert!(alive.len() <= NAMESPACES);
                for namespace in alive.keys() {
                    let count = runtimes.values().filter(|ns| *ns == namespace).count();
                    assert!(count <= RUNTIMES_PER_NAMESPACE);
                }
            }
        }
        Ok(())
    }

    #[test]
    fn a_three_minute_soak_sees_every_fault_a_namespace_deletion_and_a_checkpoint() {
        let steps = all(7, 180);
        let count = |wanted: &Step| steps.iter().filter(|s| *s == wanted).count();
        assert!(count(&Step::Fault(Fault::KillLeader)) >= 1);
        assert!(count(&Step::Fault(Fault::StopLeader)) >= 1);
        assert!(count(&Step::Fault(Fault::CutConnections)) >= 3);
        assert!(count(&Step::Checkpoint) >= 1);
        assert!(
            steps
                .iter()
                .any(|s| matches!(s, Step::Operation(Operation::DeleteNamespace { .. })))
        );
        let operations = steps
            .iter()
            .filter(|s| matches!(s, Step::Operation(_)))
            .count();
        assert_eq!(operations, 180);
    }

    #[test]
    fn a_long_soak_fails_over_every_few_minutes_then_lets_a_leader_live() {
        let steps = all(3, 1800);
        let mut operations = 0;
        let mut failovers_at = Vec::new();
        for step in &steps {
            match step {
                Step::Operation(_) => operations += 1,
                Step::Fault(Fault::KillLeader | Fault::StopLeader) => failovers_at.push(operations),
                _ => {}
            }
        }
        assert!(failovers_at.len() >= 4, "{failovers_at:?}");
        assert!(failovers_at.iter().all(|at| *at < 1200), "{failovers_at:?}");
        assert!(
            failovers_at.windows(2).all(|w| w[1] - w[0] <= 300),
            "{failovers_at:?}"
        );
        // A short soak keeps failing over to its end.
        assert_eq!(Every::for_steps(180).quiet_tail, 0);
        assert_eq!(Every::for_steps(7200).quiet_tail, 900);
    }

    #[test]
    fn every_kind_of_operation_happens_in_a_long_soak() {
        let kinds: std::collections::BTreeSet<&str> = all(1, 1800)
            .iter()
            .filter_map(|s| match s {
                Step::Operation(op) => Some(op.kind()),
                _ => None,
            })
            .collect();
        assert_eq!(kinds.len(), 13, "{kinds:?}");
    }
}
