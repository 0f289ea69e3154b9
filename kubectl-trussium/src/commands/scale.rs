//! `kubectl trussium scale NAME --replicas N [--force]`: sets spec.replicas,
//! and says so clearly when autoscaling owns the replica count.

use clap::Args;
use kube::api::{Patch, PatchParams};
use serde_json::json;
use trussium_api::TrussiumRuntime;
use trussium_api::validation::MAX_REPLICAS;

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::{Error, Result};
use crate::output::{self, Palette};
use crate::suspension::{Guard, guard, recorded_note};

#[derive(Args, Debug)]
pub struct ScaleArgs {
    /// The runtime to scale
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// The new replica count, 0 to 1000 (the API's bound)
    #[arg(long, value_name = "N", value_parser = parse_replicas, allow_negative_numbers = true)]
    pub replicas: i32,

    /// Set spec.replicas even while autoscaling owns the replica count, or the runtime is suspended
    #[arg(long)]
    pub force: bool,
}

pub const HELP: &str = "\
While spec.autoscaling.enabled is true the HorizontalPodAutoscaler owns the
replica count: scale refuses and says what to do instead;
--force sets spec.replicas anyway, to take effect once autoscaling is disabled.
Likewise on a suspended runtime: refused, and --force records the count for
its resume.

Examples:
  kubectl trussium scale private-ai --replicas 3
  kubectl trussium scale private-ai --replicas 0";

fn parse_replicas(value: &str) -> Result<i32, String> {
    let n: i64 = value
        .trim()
        .parse()
        .map_err(|_| format!("{value:?} is not a whole number"))?;
    if n < 0 {
        return Err(format!(
            "replicas must be 0 or more (got {n}); use 0 to scale the runtime down"
        ));
    }
    if n > i64::from(MAX_REPLICAS) {
        return Err(format!(
            "replicas must be at most {MAX_REPLICAS} (got {n}), the most the API allows"
        ));
    }
    i32::try_from(n).map_err(|_| format!("{n} replicas is more than the API allows"))
}

/// What `scale` will do, decided from the runtime as it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Patch spec.replicas from `from`.
    Patch { from: i32 },
    /// spec.replicas already has the value.
    Unchanged,
    /// The runtime is being deleted: scaling it would mislead.
    BeingDeleted,
    /// Autoscaling owns the count and --force was not given.
    Refuse { min: i32, max: Option<i32> },
    /// Autoscaling owns the count; set spec.replicas anyway for later.
    Forced {
        from: i32,
        min: i32,
        max: Option<i32>,
    },
}

pub fn plan(rt: &TrussiumRuntime, replicas: i32, force: bool) -> Plan {
    let from = rt.spec.replicas;
    if rt.metadata.deletion_timestamp.is_some() {
        return Plan::BeingDeleted;
    }
    match rt.spec.autoscaling.as_ref().filter(|a| a.enabled) {
        Some(a) if !force => Plan::Refuse {
            min: a.min_replicas,
            max: a.max_replicas,
        },
        Some(a) => Plan::Forced {
            from,
            min: a.min_replicas,
            max: a.max_replicas,
        },
        None if from == replicas => Plan::Unchanged,
        None => Plan::Patch { from },
    }
}

pub async fn run(target: &Target, args: &ScaleArgs, palette: Palette) -> Result<()> {
    let name = &args.name;
    let rt = target.get_runtime_spec(name).await?;
    let guarded = guard(&rt, &target.namespace, "scaling", args.force)?;
    let n = args.replicas;
    let message = match plan(&rt, n, args.force) {
        Plan::Refuse { min, max } => {
            return Err(Error::AutoscalingOwnsReplicas {
                name: name.to_string(),
                namespace: target.namespace.clone(),
                min,
                max,
                requested: n,
            });
        }
        Plan::BeingDeleted => {
            return Err(Error::BeingDeleted {
                doing: "scaling",
                name: name.to_string(),
            });
        }
        Plan::Unchanged => format!("{name}: spec.replicas is already {n}; nothing changed"),
        Plan::Patch { from } => {
            patch(target, name, n).await?;
            let mut text = format!(
                "{name} scaled: spec.replicas {from} → {}",
                palette.bold(&n.to_string())
            );
            if n == 0 {
                text.push_str(" (scaling down: Ready=True/ScaledToZero once no replica runs)");
            }
            text
        }
        Plan::Forced { from, min, max } => {
            patch(target, name, n).await?;
            let range = max.map_or(format!("{min} or more"), |max| format!("{min}–{max}"));
            format!(
                "{name}: spec.replicas {from} → {n}, {}",
                palette.warn(&format!(
                    "but autoscaling is enabled: the HorizontalPodAutoscaler keeps owning the replica count ({range}); spec.replicas takes effect once spec.autoscaling.enabled is false"
                ))
            )
        }
    };
    output::println(&message)?;
    if guarded == Guard::Recorded {
        output::println(&palette.warn(&recorded_note(name, &target.namespace)))?;
    }
    Ok(())
}

async fn patch(target: &Target, name: &str, replicas: i32) -> Result<()> {
    target
        .runtimes()
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": replicas}})),
        )
        .await
        .map_err(|e| target.fail(target.runtime_request("patch", name), e))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Command, try_parse};
    use trussium_api::AutoscalingSpec;

    fn rt(replicas: i32, autoscaling: Option<bool>) -> TrussiumRuntime {
        let mut rt: TrussiumRuntime = serde_json::from_value(json!({
            "apiVersion": "runtime.trussium.io/v1beta1", "kind": "TrussiumRuntime",
            "metadata": {"name": "rt"},
            "spec": {"image": {"repository": "r", "tag": "v1"}, "replicas": replicas,
                     "provider": {"type": "ollama", "model": "m"}}
        }))
        .unwrap_or_else(|e| panic!("{e}"));
        rt.spec.autoscaling = autoscaling.map(|enabled| AutoscalingSpec {
            enabled,
            min_replicas: 2,
            max_replicas: Some(10),
            target_cpu_utilization_percentage: 80,
        });
        rt
    }

    #[test]
    fn plans() {
        assert_eq!(plan(&rt(1, None), 3, false), Plan::Patch { from: 1 });
        assert_eq!(plan(&rt(1, None), 0, false), Plan::Patch { from: 1 });
        assert_eq!(plan(&rt(3, None), 3, false), Plan::Unchanged);
        assert_eq!(plan(&rt(3, Some(false)), 4, false), Plan::Patch { from: 3 });
        assert_eq!(
            plan(&rt(1, Some(true)), 4, false),
            Plan::Refuse {
                min: 2,
                max: Some(10)
            }
        );
        assert_eq!(
            plan(&rt(1, Some(true)), 4, true),
            Plan::Forced {
                from: 1,
                min: 2,
                max: Some(10)
            }
        );
        let mut deleting = rt(1, Some(true));
        deleting.metadata.deletion_timestamp = Some(
            k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(crate::fixtures::at(0)),
        );
        assert_eq!(plan(&deleting, 4, true), Plan::BeingDeleted);
    }

    #[test]
    fn replicas_zero_allowed_negative_refused() {
        let cli = try_parse(&["scale", "rt", "--replicas", "0"]).unwrap_or_else(|e| panic!("{e}"));
        let Command::Scale(args) = cli.command else {
            panic!("not scale");
        };
        assert_eq!(args.replicas, 0);
        let err = try_parse(&["scale", "rt", "--replicas", "-1"])
            .err()
            .unwrap_or_else(|| panic!("-1 accepted"));
        assert_eq!(err.exit_code(), 2);
        assert!(
            err.to_string().contains("replicas must be 0 or more"),
            "{err}"
        );
        assert!(try_parse(&["scale", "rt", "--replicas", "two"]).is_err());
        assert!(try_parse(&["scale", "rt"]).is_err());
        let max = MAX_REPLICAS.to_string();
        assert!(try_parse(&["scale", "rt", "--replicas", &max]).is_ok());
        for over in ["1001", "2147483647", "99999999999"] {
            let err = try_parse(&["scale", "rt", "--replicas", over])
                .err()
                .unwrap_or_else(|| panic!("{over} accepted"));
            assert_eq!(err.exit_code(), 2, "{over}");
            assert!(
                err.to_string().contains("replicas must be at most 1000"),
                "{err}"
            );
        }
    }
}
