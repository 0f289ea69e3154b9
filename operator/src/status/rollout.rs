//! The outcome of the managed Deployment's rollout, read from the Deployment
//! alone.

use super::observed::ObservedDeployment;

/// Where the Deployment's rollout stands, from the runtime's point of view.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rollout {
    /// No managed Deployment: not created yet, deleted, or not applied.
    Absent,
    /// The Deployment controller has not acted on the latest spec yet; its
    /// counts and conditions describe an older one. Checked first, so that a
    /// stale `ProgressDeadlineExceeded` is never reported for a new spec (the
    /// controller re-evaluates progress for every new generation).
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
    /// Every desired replica runs the current template, is ready and
    /// available, and no old replica is left.
    Complete,
    /// Still converging.
    Progressing,
}

impl Rollout {
    /// Classifies the Deployment against the runtime's desired replica count.
    pub fn of(deployment: Option<&ObservedDeployment>, desired: i32) -> Rollout {
        let Some(d) = deployment else {
            return Rollout::Absent;
        };
        if d.generation_pending() {
            return Rollout::GenerationPending {
                generation: d.generation.unwrap_or_default(),
                observed: d.observed_generation.unwrap_or_default(),
            };
        }
        if d.progress_deadline_exceeded() && d.unavailable_replicas > 0 {
            let message = d
                .progressing
                .as_ref()
                .map(|c| c.message.clone())
                .unwrap_or_default();
            return Rollout::Failed { message };
        }
        // `replicas == desired` means no old ReplicaSet still holds pods.
        let complete = d.updated_replicas == desired
            && d.replicas == desired
            && d.ready_replicas == desired
            && d.available_replicas == desired;
        if complete {
            Rollout::Complete
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

    /// The Deployment's counts and conditions describe the current spec.
    pub fn is_current(&self) -> bool {
        !matches!(self, Rollout::Absent | Rollout::GenerationPending { .. })
    }
}

#[cfg(test)]
mod tests {
    use super::super::observed::ObservedCondition;
    use super::*;

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
            status: "False".into(),
            reason: "ProgressDeadlineExceeded".into(),
            message: "timed out".into(),
        });
        d
    }

    #[test]
    fn absent() {
        assert_eq!(Rollout::of(None, 1), Rollout::Absent);
    }

    #[test]
    fn pending_wins_over_a_stale_failure() {
        let d = deadline_exceeded(deployment(3, 2, [1, 1, 1, 1]));
        assert_eq!(
            Rollout::of(Some(&d), 1),
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
            Rollout::of(Some(&d), 1),
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
        assert_eq!(Rollout::of(Some(&d), 1), Rollout::Progressing);
        // Its next sync: the rollout is complete (the condition may lag too).
        let mut d = deadline_exceeded(deployment(3, 3, [1, 1, 1, 1]));
        d.unavailable_replicas = 0;
        assert_eq!(Rollout::of(Some(&d), 1), Rollout::Complete);
        // A failed rollout scaled to zero is a complete scale-down.
        let mut d = deadline_exceeded(deployment(4, 4, [0, 0, 0, 0]));
        d.unavailable_replicas = 0;
        assert_eq!(Rollout::of(Some(&d), 0), Rollout::Complete);
    }

    #[test]
    fn complete_needs_every_count_and_no_old_replicas() {
        assert!(Rollout::of(Some(&deployment(2, 2, [2, 2, 2, 2])), 2).is_complete());
        assert!(Rollout::of(Some(&deployment(2, 2, [0, 0, 0, 0])), 0).is_complete());
        for counts in [
            [3, 2, 2, 2],
            [2, 1, 2, 2],
            [2, 2, 1, 2],
            [2, 2, 2, 1],
            [1, 1, 1, 1],
        ] {
            assert_eq!(
                Rollout::of(Some(&deployment(2, 2, counts)), 2),
                Rollout::Progressing,
                "{counts:?}"
            );
        }
    }
}
