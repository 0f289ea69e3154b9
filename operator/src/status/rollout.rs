//! The outcome of the managed Deployment's rollout, read from the Deployment
//! alone.

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
    /// A `ProgressDeadlineExceeded` with nothing unavailable is stale: going
    /// back to an earlier pod template (say, the last successful image after
    /// a failed upgrade) makes the Deployment controller adopt that
    /// template's existing ReplicaSet, and it keeps the old verdict, naming
    /// the failed ReplicaSet, for the current generation until its next sync
    /// marks the rollout complete. Meanwhile every replica it asks for is
    /// available (`unavailableReplicas` is 0), which a rollout that really
    /// is stuck never shows: its new ReplicaSet wants at least one replica
    /// that is not available.
    Failed { message: String },
    /// The desired spec is rolled out and serving: see [`serves`].
    Complete,
    /// Still converging.
    Progressing,
}

impl Rollout {
    /// Classifies the Deployment against the runtime's desired replica count.
    /// `known_template` is the pod template fingerprint the previous status
    /// recorded (`status.observedTemplateHash`).
    pub fn of(
        deployment: Option<&ObservedDeployment>,
        desired: i32,
        known_template: Option<&str>,
    ) -> Rollout {
        let Some(d) = deployment else {
            return Rollout::Absent;
        };
        let pending = Rollout::GenerationPending {
            generation: d.generation.unwrap_or_default(),
            observed: d.observed_generation.unwrap_or_default(),
        };
        if d.generation_pending() && !d.keeps_template(known_template) {
            return pending;
        }
        if d.progress_deadline_exceeded() && d.unavailable_replicas > 0 {
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
        });
        d
    }

    #[test]
    fn absent() {
        assert_eq!(Rollout::of(None, 1, None), Rollout::Absent);
    }

    #[test]
    fn pending_wins_over_a_stale_failure() {
        let d = deadline_exceeded(deployment(3, 2, [1, 1, 1, 1]));
        assert_eq!(
            Rollout::of(Some(&d), 1, None),
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
            Rollout::of(Some(&d), 1, None),
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
        assert_eq!(Rollout::of(Some(&d), 1, None), Rollout::Progressing);
        // Its next sync: the rollout is complete (the condition may lag too).
        let mut d = deadline_exceeded(deployment(3, 3, [1, 1, 1, 1]));
        d.unavailable_replicas = 0;
        assert_eq!(Rollout::of(Some(&d), 1, None), Rollout::Complete);
        // A failed rollout scaled to zero is a complete scale-down.
        let mut d = deadline_exceeded(deployment(4, 4, [0, 0, 0, 0]));
        d.unavailable_replicas = 0;
        assert_eq!(Rollout::of(Some(&d), 0, None), Rollout::Complete);
    }

    #[test]
    fn complete_needs_every_desired_replica_updated_ready_and_available() {
        let of = |counts, desired| Rollout::of(Some(&deployment(2, 2, counts)), desired, None);
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
        assert_eq!(Rollout::of(Some(&d), 2, Some("aaaa")), Rollout::Complete);
        // A scale-down: still served.
        assert_eq!(Rollout::of(Some(&d), 1, Some("aaaa")), Rollout::Complete);
        // A scale-up: the controller has yet to act.
        assert_eq!(Rollout::of(Some(&d), 3, Some("aaaa")), pending);
        // Another template, or none known: a rollout whatever the counts.
        assert_eq!(Rollout::of(Some(&d), 2, Some("bbbb")), pending);
        assert_eq!(Rollout::of(Some(&d), 2, None), pending);
        d.template_hash = None;
        assert_eq!(Rollout::of(Some(&d), 2, None), pending);
        // A failed rollout stays failed across an annotation.
        let mut failed = deadline_exceeded(deployment(3, 2, [2, 1, 1, 1]));
        failed.template_hash = Some("aaaa".into());
        assert!(Rollout::of(Some(&failed), 1, Some("aaaa")).is_failed());
        assert_eq!(
            Rollout::of(Some(&failed), 1, Some("bbbb")),
            Rollout::GenerationPending {
                generation: 3,
                observed: 2
            }
        );
    }
}
