//! The outcome of the managed Deployment's rollout, read from the Deployment
//! alone.

use k8s_openapi::jiff::Timestamp;

use super::observed::ObservedDeployment;

/// Where the Deployment's rollout stands, from the runtime's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// No managed Deployment: not created yet, deleted, or not applied.
    Absent,
    /// The Deployment controller has not acted on the latest spec yet, and
    /// either that spec changes what the pods run or its counts do not serve
    /// the desired count yet. A pending generation whose pod template is the
    /// one the counts already describe (someone annotated the Deployment, the
    /// HPA scaled it) is judged by its counts instead: it is not a rollout.
    /// Checked before a failure, so that a stale `ProgressDeadlineExceeded`
    /// is never reported for a new template (the controller re-evaluates
    /// progress for every new generation).
    GenerationPending { generation: i64, observed: i64 },
    /// The current generation's rollout exceeded its progress deadline and
    /// some replica the Deployment asks for is still unavailable.
    ///
    /// Going back to an earlier pod template (say, the last successful image
    /// after a failed upgrade) makes the Deployment controller adopt that
    /// template's existing ReplicaSet, and it keeps the old verdict, naming
    /// the failed ReplicaSet, for the current generation until a later sync
    /// sees progress. Such a `ProgressDeadlineExceeded` is stale, and known
    /// as such two ways:
    /// - nothing is unavailable: a rollout that really is stuck always has a
    ///   replica its new ReplicaSet wants and that is not available;
    /// - it was set no later than the rollout the operator follows began
    ///   (the `Progressing` condition turned `True`): a deadline for this
    ///   rollout passes at least `progressDeadlineSeconds` after its start.
    ///   The counts of the first report on the adopted ReplicaSet may still
    ///   be stale (an unavailable replica that is available by now), so the
    ///   first way alone does not suffice.
    Failed { message: String },
    /// The desired spec is rolled out and serving: see [`serves`].
    Complete,
    /// Still converging.
    Progressing,
}

/// What the previous status recorded about the rollout.
#[derive(Clone, Copy, Debug, Default)]
pub struct Recorded<'a> {
    /// The pod template fingerprint (`status.observedTemplateHash`).
    pub template: Option<&'a str>,
    /// When the runtime's `Progressing` condition turned `True`, while it
    /// still is: the start of the rollout the operator follows.
    pub progressing_since: Option<Timestamp>,
}

impl Rollout {
    /// Classifies the Deployment against the runtime's desired replica count
    /// and what the previous status recorded.
    pub fn of(
        deployment: Option<&ObservedDeployment>,
        desired: i32,
        recorded: Recorded,
    ) -> Rollout {
        let Some(d) = deployment else {
            return Rollout::Absent;
        };
        let pending = Rollout::GenerationPending {
            generation: d.generation.unwrap_or_default(),
            observed: d.observed_generation.unwrap_or_default(),
        };
        if d.generation_pending() && !d.keeps_template(recorded.template) {
            return pending;
        }
        if d.progress_deadline_exceeded()
            && d.unavailable_replicas > 0
            && !d.deadline_predates(recorded.progressing_since)
        {
            let message = d
                .progressing
                .as_ref()
                .map(|c| c.message.clone())
                .unwrap_or_default();
            return Rollout::Failed { message };
        }
        if serves(d, desired) {
            Rollout::Complete
        } else if d.generation_pending() {
            pending
        } else {
            Rollout::Progressing
        }
    }

    pub fn is_complete(&self) -> bool {
        matches!(self, Rollout::Complete)
    }

    pub fn is_failed(&self) -> bool {
        matches!(self, Rollout::Failed { .. })
    }
}

impl ObservedDeployment {
    /// The pod template is the one `known` fingerprints, so the counts the
    /// Deployment shows describe pods of the current template.
    fn keeps_template(&self, known: Option<&str>) -> bool {
        known.is_some() && self.template_hash.as_deref() == known
    }

    /// The `Progressing` verdict was set no later than `since`, so it cannot
    /// be about a rollout that began then. Compared in whole seconds (all
    /// `metav1.Time` keeps) and inclusively: the controller's verdict and
    /// the operator's report of it often fall in the same second, and a
    /// real deadline is at least a second after its rollout began.
    fn deadline_predates(&self, since: Option<Timestamp>) -> bool {
        let set = self.progressing.as_ref().and_then(|c| c.last_update);
        matches!((set, since), (Some(set), Some(since)) if set.as_second() <= since.as_second())
    }

    /// Replicas of older pod templates (surplus old pods while a rolling
    /// update drains them).
    pub fn old_replicas(&self) -> i32 {
        (self.replicas - self.updated_replicas).max(0)
    }
}

/// Every desired replica runs the current pod template and is ready and
/// available, counted from the Deployment alone: `readyReplicas` and
/// `availableReplicas` include old pods, so the old ones are taken off as if
/// they all were ready. Surplus old pods that still drain therefore do not
/// hold it back, and a new pod that is not ready is never hidden by an old
/// one that is. At zero, no pod may be left.
pub fn serves(d: &ObservedDeployment, desired: i32) -> bool {
    if desired == 0 {
        return d.replicas == 0;
    }
    let old = d.old_replicas();
    d.updated_replicas >= desired
        && d.ready_replicas - old >= desired
        && d.available_replicas - old >= desired
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::observed::ObservedCondition;
    use super::*;
    use trussium_api::ConditionStatus;

    fn deployment(generation: i64, observed: i64, counts: [i32; 4]) -> ObservedDeployment {
        let [replicas, updated, ready, available] = counts;
        ObservedDeployment {
            generation: Some(generation),
            observed_generation: Some(observed),
            replicas,
            updated_replicas: updated,
            ready_replicas: ready,
            available_replicas: available,
            ..Default::default()
        }
    }

    fn deadline_exceeded(mut d: ObservedDeployment) -> ObservedDeployment {
        d.unavailable_replicas = 1;
        d.progressing = Some(ObservedCondition {
            status: ConditionStatus::False,
            reason: "ProgressDeadlineExceeded".into(),
            message: "timed out".into(),
            last_update: Some(at(100)),
        });
        d
    }

    fn at(second: i64) -> Timestamp {
        Timestamp::from_second(second).unwrap()
    }

    fn template(hash: &str) -> Recorded<'_> {
        Recorded {
            template: Some(hash),
            progressing_since: None,
        }
    }

    fn since(second: i64) -> Recorded<'static> {
        Recorded {
            template: None,
            progressing_since: Some(at(second)),
        }
    }

    #[test]
    fn an_old_ready_pod_never_hides_a_new_one_that_is_not() {
        // Two desired, both updated, one old pod still draining: [replicas,
        // updated, ready, available].
        assert!(serves(&deployment(2, 2, [3, 2, 3, 3]), 2));
        // One new pod not ready (the old one is).
        assert!(!serves(&deployment(2, 2, [3, 2, 2, 3]), 2));
        // One new pod ready but not yet available.
        assert!(!serves(&deployment(2, 2, [3, 2, 3, 2]), 2));
        assert!(!serves(&deployment(2, 2, [3, 1, 3, 3]), 2));
    }

    #[test]
    fn absent() {
        assert_eq!(Rollout::of(None, 1, Recorded::default()), Rollout::Absent);
    }

    #[test]
    fn pending_wins_over_a_stale_failure() {
        let d = deadline_exceeded(deployment(3, 2, [1, 1, 1, 1]));
        assert_eq!(
            Rollout::of(Some(&d), 1, Recorded::default()),
            Rollout::GenerationPending {
                generation: 3,
                observed: 2
            }
        );
    }

    #[test]
    fn failed_for_the_current_generation() {
        let d = deadline_exceeded(deployment(3, 3, [2, 1, 1, 1]));
        assert_eq!(
            Rollout::of(Some(&d), 1, Recorded::default()),
            Rollout::Failed {
                message: "timed out".into()
            }
        );
    }

    #[test]
    fn a_deadline_with_nothing_unavailable_is_stale() {
        // As the Deployment controller shows a rollback to the previous
        // template right after adopting its ReplicaSet: the failed
        // ReplicaSet's pod is still counted, nothing is unavailable.
        let mut d = deadline_exceeded(deployment(3, 3, [2, 1, 1, 1]));
        d.unavailable_replicas = 0;
        assert_eq!(
            Rollout::of(Some(&d), 1, Recorded::default()),
            Rollout::Progressing
        );
        // Its next sync: the rollout is complete (the condition may lag too).
        let mut d = deadline_exceeded(deployment(3, 3, [1, 1, 1, 1]));
        d.unavailable_replicas = 0;
        assert_eq!(
            Rollout::of(Some(&d), 1, Recorded::default()),
            Rollout::Complete
        );
        // A failed rollout scaled to zero is a complete scale-down.
        let mut d = deadline_exceeded(deployment(4, 4, [0, 0, 0, 0]));
        d.unavailable_replicas = 0;
        assert_eq!(
            Rollout::of(Some(&d), 0, Recorded::default()),
            Rollout::Complete
        );
    }

    #[test]
    fn a_deadline_set_before_the_rollout_began_is_stale() {
        // The first report on an adopted ReplicaSet after going back from a
        // failed upgrade: the old verdict (set at 100) and counts that still
        // show the failed ReplicaSet's pod unavailable.
        let d = deadline_exceeded(deployment(3, 3, [2, 1, 1, 1]));
        // The rollout the operator follows began after it, or in its second.
        assert_eq!(Rollout::of(Some(&d), 1, since(160)), Rollout::Progressing);
        assert_eq!(Rollout::of(Some(&d), 1, since(100)), Rollout::Progressing);
        // A deadline set after the rollout began is about it.
        assert!(Rollout::of(Some(&d), 1, since(99)).is_failed());
        // No rollout in flight recorded (`Progressing` is `False`: failed,
        // complete): the deadline counts, so a failed rollout that is scaled
        // or annotated stays failed.
        assert!(Rollout::of(Some(&d), 1, Recorded::default()).is_failed());
        // A verdict without a time cannot be dated: it counts.
        let mut undated = d.clone();
        if let Some(c) = undated.progressing.as_mut() {
            c.last_update = None;
        }
        assert!(Rollout::of(Some(&undated), 1, since(160)).is_failed());
        // A pending generation of a new template still wins.
        let pending = deadline_exceeded(deployment(4, 3, [2, 1, 1, 1]));
        assert!(matches!(
            Rollout::of(Some(&pending), 1, since(99)),
            Rollout::GenerationPending { .. }
        ));
    }

    #[test]
    fn complete_needs_every_desired_replica_updated_ready_and_available() {
        let of = |counts, desired| {
            Rollout::of(
                Some(&deployment(2, 2, counts)),
                desired,
                Recorded::default(),
            )
        };
        assert!(of([2, 2, 2, 2], 2).is_complete());
        assert!(of([0, 0, 0, 0], 0).is_complete());
        // More than desired, all of the current template (a scale-down).
        assert!(of([3, 3, 3, 3], 2).is_complete());
        // A surplus old pod that still drains does not hold it back…
        assert!(of([3, 2, 3, 3], 2).is_complete());
        for counts in [
            // …but it does not stand in for a new one that is not ready.
            [3, 2, 2, 2],
            [2, 1, 2, 2],
            [2, 2, 1, 2],
            [2, 2, 2, 1],
            [1, 1, 1, 1],
            // The classic upgrade: the old pod serves, the new one is not ready.
            [3, 2, 1, 1],
        ] {
            assert_eq!(of(counts, 2), Rollout::Progressing, "{counts:?}");
        }
        // At zero, no pod may be left, whatever its template.
        assert_eq!(of([1, 1, 1, 1], 0), Rollout::Progressing);
        assert_eq!(of([1, 0, 1, 1], 0), Rollout::Progressing);
    }

    #[test]
    fn a_pending_generation_that_keeps_the_template_is_judged_by_its_counts() {
        let mut d = deployment(3, 2, [2, 2, 2, 2]);
        d.template_hash = Some("aaaa".into());
        let pending = Rollout::GenerationPending {
            generation: 3,
            observed: 2,
        };
        // Same template as the counts describe: no rollout.
        assert_eq!(
            Rollout::of(Some(&d), 2, template("aaaa")),
            Rollout::Complete
        );
        // A scale-down: still served.
        assert_eq!(
            Rollout::of(Some(&d), 1, template("aaaa")),
            Rollout::Complete
        );
        // A scale-up: the controller has yet to act.
        assert_eq!(Rollout::of(Some(&d), 3, template("aaaa")), pending);
        // Another template, or none known: a rollout whatever the counts.
        assert_eq!(Rollout::of(Some(&d), 2, template("bbbb")), pending);
        assert_eq!(Rollout::of(Some(&d), 2, Recorded::default()), pending);
        d.template_hash = None;
        assert_eq!(Rollout::of(Some(&d), 2, Recorded::default()), pending);
        // A failed rollout stays failed across an annotation.
        let mut failed = deadline_exceeded(deployment(3, 2, [2, 1, 1, 1]));
        failed.template_hash = Some("aaaa".into());
        assert!(Rollout::of(Some(&failed), 1, template("aaaa")).is_failed());
        assert_eq!(
            Rollout::of(Some(&failed), 1, template("bbbb")),
            Rollout::GenerationPending {
                generation: 3,
                observed: 2
            }
        );
    }
}
