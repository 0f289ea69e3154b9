//! The operator as others see it: the flags of its Deployment that say what
//! it watches and which Lease it holds (the plugin's `check` reads them from
//! the installed Deployment), and the names of what it builds for a runtime
//! (the plugin's `history` reads its ReplicaSets).

/// Name of the runtime container in every runtime Deployment's pod template.
pub const RUNTIME_CONTAINER: &str = "runtime";

/// `--namespace`: watch only this namespace instead of the whole cluster.
pub const WATCH_NAMESPACE_FLAG: &str = "namespace";
/// The environment variable behind [`WATCH_NAMESPACE_FLAG`].
pub const WATCH_NAMESPACE_ENV: &str = "TRUSSIUM_WATCH_NAMESPACE";
/// `--leader-elect[=true|false]` (on by default).
pub const LEADER_ELECT_FLAG: &str = "leader-elect";
/// `--leader-elect-resource-name`: the Lease's name.
pub const LEASE_NAME_FLAG: &str = "leader-elect-resource-name";
/// The Lease's name unless [`LEASE_NAME_FLAG`] says otherwise.
pub const LEASE_NAME_DEFAULT: &str = "trussium-operator";
/// `--leader-elect-resource-namespace`: the Lease's namespace (default: the
/// operator's own).
pub const LEASE_NAMESPACE_FLAG: &str = "leader-elect-resource-namespace";

/// What an operator Deployment's container says about the operator's scope
/// and its Lease.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OperatorArgs {
    /// The one namespace it watches, or `None` for the whole cluster.
    pub watch_namespace: Option<String>,
    /// `None` when leader election is off; else the Lease's namespace (when
    /// set; otherwise the operator's own) and name.
    pub lease: Option<(Option<String>, String)>,
}

impl OperatorArgs {
    /// Reads a container's `args` and `env` (name and literal value) as the
    /// operator's command line would: `--flag=value` or `--flag value`, the
    /// last occurrence winning, a flag before its environment variable.
    pub fn read(args: &[String], env: &[(String, String)]) -> OperatorArgs {
        let watch_namespace = flag(args, WATCH_NAMESPACE_FLAG)
            .or_else(|| {
                env.iter()
                    .rev()
                    .find(|(name, _)| name == WATCH_NAMESPACE_ENV)
                    .map(|(_, value)| value.clone())
            })
            .filter(|ns| !ns.is_empty());
        let elect = args
            .iter()
            .rev()
            .find_map(|a| match a.strip_prefix("--")?.split_once('=') {
                Some((LEADER_ELECT_FLAG, value)) => Some(value != "false"),
                None if a == &format!("--{LEADER_ELECT_FLAG}") => Some(true),
                _ => None,
            })
            .unwrap_or(true);
        let lease = elect.then(|| {
            (
                flag(args, LEASE_NAMESPACE_FLAG),
                flag(args, LEASE_NAME_FLAG).unwrap_or_else(|| LEASE_NAME_DEFAULT.to_string()),
            )
        });
        OperatorArgs {
            watch_namespace,
            lease,
        }
    }
}

/// The value of the last `--name=value` or `--name value` in `args`.
fn flag(args: &[String], name: &str) -> Option<String> {
    let long = format!("--{name}");
    let mut found = None;
    let mut words = args.iter();
    while let Some(word) = words.next() {
        if word == &long {
            found = words.next().cloned();
        } else if let Some(value) = word
            .strip_prefix(&long)
            .and_then(|rest| rest.strip_prefix('='))
        {
            found = Some(value.to_string());
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strings(words: &[&str]) -> Vec<String> {
        words.iter().map(|w| w.to_string()).collect()
    }

    fn read(args: &[&str], env: &[(&str, &str)]) -> OperatorArgs {
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        OperatorArgs::read(&strings(args), &env)
    }

    #[test]
    fn cluster_wide_with_the_default_lease() {
        let got = read(&["--log-format=json", "--leader-elect"], &[]);
        assert_eq!(got.watch_namespace, None);
        assert_eq!(got.lease, Some((None, "trussium-operator".to_string())));
        assert_eq!(read(&[], &[]), got);
    }

    #[test]
    fn the_watched_namespace_from_a_flag_or_the_environment() {
        let one = |args: &[&str], env: &[(&str, &str)]| read(args, env).watch_namespace;
        assert_eq!(one(&["--namespace=ai"], &[]), Some("ai".into()));
        assert_eq!(one(&["--namespace", "ai"], &[]), Some("ai".into()));
        assert_eq!(
            one(&["--namespace=a", "--namespace=b"], &[]),
            Some("b".into())
        );
        assert_eq!(
            one(&[], &[("TRUSSIUM_WATCH_NAMESPACE", "ai")]),
            Some("ai".into())
        );
        assert_eq!(
            one(
                &["--namespace=flag"],
                &[("TRUSSIUM_WATCH_NAMESPACE", "env")]
            ),
            Some("flag".into())
        );
        assert_eq!(one(&["--namespaces=x", "--namespace-x"], &[]), None);
        assert_eq!(one(&["--namespace="], &[]), None);
    }

    #[test]
    fn leader_election_settings() {
        assert_eq!(read(&["--leader-elect=false"], &[]).lease, None);
        assert_eq!(
            read(&["--leader-elect=false", "--leader-elect=true"], &[]).lease,
            Some((None, "trussium-operator".into()))
        );
        assert_eq!(
            read(
                &[
                    "--leader-elect-resource-name=other",
                    "--leader-elect-resource-namespace",
                    "ops"
                ],
                &[]
            )
            .lease,
            Some((Some("ops".into()), "other".into()))
        );
    }
}
