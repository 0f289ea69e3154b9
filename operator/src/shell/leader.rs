//! Leader election through a Lease (kube-lease-manager), with
//! controller-runtime's rules: only the leader reconciles (writes); a standby
//! keeps its watch caches warm; losing the lease ends the process at once;
//! a graceful stop releases the lease so that a standby takes over at once.

mod renewals;

use std::time::Duration;

use kube::Client;
use kube_lease_manager::{LeaseManager, LeaseManagerBuilder};
use tokio::sync::{Mutex, watch};

use crate::shell::metrics::Metrics;
pub use renewals::{Renewals, RenewalsLayer};

/// Lease timings, controller-runtime's defaults: 15 s lease, 10 s renew
/// deadline, 2 s retry period.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LeaseTimings {
    /// How long a standby waits after the last renewal before taking over.
    pub lease_duration: Duration,
    /// How long the leader keeps trying to renew before it gives up (and exits).
    pub renew_deadline: Duration,
    /// How often the leader renews (and a candidate retries).
    pub retry_period: Duration,
}

impl Default for LeaseTimings {
    fn default() -> Self {
        LeaseTimings {
            lease_duration: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry_period: Duration::from_secs(2),
        }
    }
}

impl LeaseTimings {
    /// Validates as client-go does: lease duration > renew deadline > retry
    /// period > 0. The Lease counts whole seconds.
    pub fn new(
        lease_duration: Duration,
        renew_deadline: Duration,
        retry_period: Duration,
    ) -> Result<LeaseTimings, String> {
        for (flag, value) in [
            ("--leader-elect-lease-duration", lease_duration),
            ("--leader-elect-renew-deadline", renew_deadline),
            ("--leader-elect-retry-period", retry_period),
        ] {
            if value.is_zero() || value.subsec_nanos() != 0 {
                return Err(format!(
                    "{flag} must be a whole number of seconds greater than 0"
                ));
            }
        }
        if lease_duration <= renew_deadline {
            return Err(format!(
                "--leader-elect-lease-duration ({}s) must be greater than --leader-elect-renew-deadline ({}s)",
                lease_duration.as_secs(),
                renew_deadline.as_secs()
            ));
        }
        if renew_deadline <= retry_period {
            return Err(format!(
                "--leader-elect-renew-deadline ({}s) must be greater than --leader-elect-retry-period ({}s)",
                renew_deadline.as_secs(),
                retry_period.as_secs()
            ));
        }
        Ok(LeaseTimings {
            lease_duration,
            renew_deadline,
            retry_period,
        })
    }

    /// How long one request of the election may take: half the renew
    /// deadline, at least a second, as controller-runtime sets its
    /// leader-election client. Without it a request to an API server that
    /// stopped answering (a dead connection, a frozen process) never returns,
    /// so the leader never gives up while a standby takes the lease over.
    pub fn request_timeout(&self) -> Duration {
        (self.renew_deadline / 2).max(Duration::from_secs(1))
    }

    /// kube-lease-manager renews `grace` seconds before expiry: renewing one
    /// retry period after the last renewal.
    fn grace_seconds(&self) -> u64 {
        self.lease_duration.as_secs() - self.retry_period.as_secs()
    }
}

/// Where this replica stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Watching, not writing.
    Standby,
    /// Reconciling.
    Leading,
    /// Shutting down: start nothing new.
    Stopping,
}

/// Read side of the role, for the reconcile gate.
#[derive(Clone)]
pub struct Leadership {
    role: watch::Receiver<Role>,
}

impl Leadership {
    /// A replica that leads from the start (`--leader-elect=false`).
    pub fn always() -> (Leadership, watch::Sender<Role>) {
        let (tx, rx) = watch::channel(Role::Leading);
        (Leadership { role: rx }, tx)
    }

    /// A replica that waits for the lease.
    pub fn standby() -> (Leadership, watch::Sender<Role>) {
        let (tx, rx) = watch::channel(Role::Standby);
        (Leadership { role: rx }, tx)
    }

    pub fn is_leading(&self) -> bool {
        *self.role.borrow() == Role::Leading
    }

    /// Resolves once this replica is stopping.
    pub async fn stopping(&self) {
        let mut role = self.role.clone();
        // A dropped sender is the process ending: stopping too.
        let _ = role.wait_for(|r| *r == Role::Stopping).await;
    }

    /// Waits until this replica leads (`true`) or stops (`false`).
    pub async fn wait_to_lead(&self) -> bool {
        let mut role = self.role.clone();
        match role.wait_for(|r| *r != Role::Standby).await {
            Ok(r) => *r == Role::Leading,
            Err(_) => false,
        }
    }
}

/// This replica's part in the election for one Lease.
pub struct Election {
    /// A client of its own (see [`LeaseTimings::request_timeout`]) whose
    /// accepted Lease writes `renewals` records.
    client: Client,
    renewals: Renewals,
    namespace: String,
    name: String,
    identity: String,
    timings: LeaseTimings,
    /// The manager that holds the lease, once this replica leads.
    held: Mutex<Option<LeaseManager>>,
}

impl Election {
    pub fn new(
        client: Client,
        renewals: Renewals,
        namespace: &str,
        name: &str,
        identity: &str,
        timings: LeaseTimings,
    ) -> Election {
        Election {
            client,
            renewals,
            namespace: namespace.into(),
            name: name.into(),
            identity: identity.into(),
            timings,
            held: Mutex::new(None),
        }
    }

    async fn manager(&self) -> Result<LeaseManager, kube_lease_manager::LeaseManagerError> {
        LeaseManagerBuilder::new(self.client.clone(), &self.name)
            .with_namespace(&self.namespace)
            .with_identity(&self.identity)
            .with_duration(self.timings.lease_duration.as_secs())
            .with_grace(self.timings.grace_seconds())
            .build()
            .await
    }

    /// Campaigns, then holds the lease, publishing the role. Returns only
    /// when leadership is lost, with the reason: the caller must then exit
    /// at once (as controller-runtime does).
    pub async fn campaign(&self, role: &watch::Sender<Role>, metrics: &Metrics) -> String {
        metrics.set_leader(false);
        let manager = self.acquire().await;
        metrics.set_leader(true);
        tracing::info!(lease = %self.name, identity = %self.identity, "became the leader");
        role.send_if_modified(|r| {
            let change = *r == Role::Standby;
            if change {
                *r = Role::Leading;
            }
            change
        });
        let mut held = self.held.lock().await;
        let manager = held.insert(manager);
        let reason = self.hold(manager).await;
        metrics.set_leader(false);
        reason
    }

    /// Tries every retry period until the lease is ours. A fresh manager each
    /// time: one whose holder is alive sleeps until that holder's expiry and
    /// would miss a release.
    async fn acquire(&self) -> LeaseManager {
        loop {
            match self.manager().await {
                Ok(manager) => {
                    match tokio::time::timeout(self.timings.retry_period, manager.changed()).await {
                        Ok(Ok(true)) => return manager,
                        // Held by another replica: look again.
                        Ok(Ok(false)) | Err(_) => {}
                        Ok(Err(err)) => {
                            tracing::warn!(error = %err, "leader election: the Lease could not be read or taken");
                            tokio::time::sleep(self.timings.retry_period).await;
                        }
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "leader election: the Lease could not be read");
                    tokio::time::sleep(self.timings.retry_period).await;
                }
            }
        }
    }

    /// Renews until the lease is lost or cannot be renewed within the renew
    /// deadline, counted from the last renewal the API server accepted.
    async fn hold(&self, manager: &LeaseManager) -> String {
        let deadline = self.timings.renew_deadline;
        let renewing = async {
            loop {
                match manager.changed().await {
                    // Still ours (it was re-taken after a lapse).
                    Ok(true) => {}
                    Ok(false) => return "another replica holds the lease".to_string(),
                    Err(err) => {
                        tracing::warn!(error = %err, "leader election: the Lease could not be renewed");
                        tokio::time::sleep(self.timings.retry_period).await;
                    }
                }
            }
        };
        let overdue = async {
            loop {
                let due = self.renewals.last() + deadline;
                if std::time::Instant::now() >= due {
                    return format!(
                        "the lease was not renewed within the renew deadline ({}s)",
                        deadline.as_secs()
                    );
                }
                tokio::time::sleep_until(due.into()).await;
            }
        };
        tokio::select! {
            lost = renewing => lost,
            lost = overdue => lost,
        }
    }

    /// Gives the lease up, if held, so that a standby takes over at once.
    pub async fn release(&self) {
        if let Some(manager) = self.held.lock().await.take() {
            match manager.release().await {
                Ok(()) => tracing::info!(lease = %self.name, "released the lease"),
                Err(err) => tracing::warn!(error = %err, "releasing the lease failed"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secs(s: u64) -> Duration {
        Duration::from_secs(s)
    }

    #[test]
    fn defaults_are_controller_runtimes() {
        let t = LeaseTimings::default();
        assert_eq!(
            (t.lease_duration, t.renew_deadline, t.retry_period),
            (secs(15), secs(10), secs(2))
        );
        assert_eq!(LeaseTimings::new(secs(15), secs(10), secs(2)), Ok(t));
        assert_eq!(t.grace_seconds(), 13);
    }

    #[test]
    fn lease_must_outlast_the_renew_deadline_which_must_outlast_the_retry() {
        assert!(LeaseTimings::new(secs(10), secs(10), secs(2)).is_err());
        assert!(
            LeaseTimings::new(secs(5), secs(10), secs(2))
                .is_err_and(|e| e.contains("must be greater than --leader-elect-renew-deadline"))
        );
        assert!(LeaseTimings::new(secs(15), secs(2), secs(2)).is_err());
        assert!(LeaseTimings::new(secs(15), secs(10), secs(0)).is_err());
        assert!(LeaseTimings::new(secs(15), secs(10), Duration::from_millis(1500)).is_err());
        assert!(LeaseTimings::new(secs(3), secs(2), secs(1)).is_ok());
    }

    #[test]
    fn requests_time_out_at_half_the_renew_deadline() {
        assert_eq!(LeaseTimings::default().request_timeout(), secs(5));
        let short = LeaseTimings::new(secs(3), secs(2), secs(1));
        assert_eq!(short.map(|t| t.request_timeout()), Ok(secs(1)));
    }

    #[tokio::test]
    async fn the_gate_opens_on_leading_and_closes_on_stopping() {
        let (leadership, role) = Leadership::standby();
        assert!(!leadership.is_leading());
        let waiter = tokio::spawn({
            let leadership = leadership.clone();
            async move { leadership.wait_to_lead().await }
        });
        let _ = role.send(Role::Leading);
        assert!(matches!(waiter.await, Ok(true)));
        assert!(leadership.is_leading());

        let (standby, role) = Leadership::standby();
        let _ = role.send(Role::Stopping);
        assert!(!standby.wait_to_lead().await);
    }
}
