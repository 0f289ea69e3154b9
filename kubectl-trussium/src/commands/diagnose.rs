//! `kubectl trussium diagnose [NAME] [-o json|yaml]`: why a runtime is not
//! Ready, or (without NAME, or with -A) which runtimes are not and why.
//!
//! Reads with the user's own rights, each kind once (never per pod): the
//! runtime, its Deployment, ReplicaSets and pods (by the operator's labels),
//! the namespace's Events, the Service's EndpointSlices and, while
//! autoscaling is on, the autoscaler; for
//! a crashing container, the last lines of its previous run. A read that is
//! refused is named in the output and the diagnosis goes on without it.
//! What it all means is [`crate::diagnosis`]'s.

use std::collections::BTreeMap;
use std::fmt::Debug;

use clap::Args;
use k8s_openapi::api::apps::v1::{Deployment, ReplicaSet};
use k8s_openapi::api::autoscaling::v2::HorizontalPodAutoscaler;
use k8s_openapi::api::core::v1::Pod;
use k8s_openapi::api::discovery::v1::EndpointSlice;
use k8s_openapi::api::events::v1::Event;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ListParams, LogParams};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;
use trussium_api::labels as keys;
use trussium_api::operator::RUNTIME_CONTAINER;

use crate::cli::RuntimeName;
use crate::client::Target;
use crate::commands::logs::{log_lines, log_request};
use crate::diagnosis::render::{render_detail, render_triage};
use crate::diagnosis::{Cause, Diagnosis, Evidence, Read, diagnose, endpoint_slices_of};
use crate::error::{DEPLOYMENTS, EVENTS, Error, PODS, REPLICA_SETS, Request, Result};
use crate::output::{self, OutputFormat, Palette};
use crate::runtime_pods;

/// How many lines of a crashed container's previous run diagnose quotes.
const LOG_LINES: i64 = 10;

#[derive(Args, Debug)]
pub struct DiagnoseArgs {
    /// The runtime to diagnose; without it, every runtime of the namespace
    /// (or of all, with -A) that is not Ready, with its cause
    #[arg(value_name = "NAME")]
    pub name: Option<RuntimeName>,

    /// Print the findings as JSON or YAML instead of the report
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

pub const HELP: &str = "\
Walks the runtime, its conditions, Deployment, ReplicaSets, pods and their
Events, and prints the root cause first, in one line, with the next step;
then the pods and the evidence (which object said what, since when). It
tells apart: an image that cannot be pulled, a crash loop (with the exit
code, or the memory limit an OOMKilled container hit), pods no node can
take, pods never created (quota, Pod Security, an admission webhook), a
container that runs and is never ready, a rollout past its deadline, a
missing Secret, and the operator's own stops. It reads with your rights:
what you may not read is named, and the diagnosis goes on without it.

Without NAME (or with -A) it lists the runtimes that are not Ready, each
with its cause: the view for whoever is on call.

Examples:
  kubectl trussium diagnose private-ai -n ai
  kubectl trussium diagnose -A
  kubectl trussium diagnose private-ai -o json | jq -r .cause";

pub async fn run(target: &Target, args: &DiagnoseArgs, palette: Palette) -> Result<()> {
    match &args.name {
        Some(name) => one(target, name, args.output, palette).await,
        None => triage(target, args.output, palette).await,
    }
}

async fn one(
    target: &Target,
    name: &str,
    format: Option<OutputFormat>,
    palette: Palette,
) -> Result<()> {
    let runtime = target.get_runtime(name).await?;
    let ns = target.namespace.as_str();
    let selector = ListParams::default().labels(&runtime_pods::selector(name));
    let autoscaling = crate::interpret::autoscaling_enabled(&runtime);
    let services = ListParams::default().labels(&endpoint_slices_of(name));
    let (deployment, replica_sets, pods, events, endpoints, autoscaler) = tokio::join!(
        read_one::<Deployment>(target, ns, name, DEPLOYMENTS),
        read_list::<ReplicaSet>(target, Some(ns), selector.clone(), REPLICA_SETS),
        read_list::<Pod>(target, Some(ns), selector.clone(), PODS),
        read_list::<Event>(target, Some(ns), ListParams::default(), EVENTS),
        read_list::<EndpointSlice>(
            target,
            Some(ns),
            services,
            "endpointslices.discovery.k8s.io"
        ),
        async {
            if autoscaling {
                Some(
                    read_one::<HorizontalPodAutoscaler>(
                        target,
                        ns,
                        name,
                        "horizontalpodautoscalers.autoscaling",
                    )
                    .await,
                )
            } else {
                None
            }
        },
    );
    let mut evidence = Evidence {
        runtime,
        deployment,
        replica_sets,
        pods,
        events: Some(events),
        autoscaler,
        endpoints: Some(endpoints),
        previous_log: None,
    };
    let mut diagnosis = diagnose(&evidence);
    if let Some(pod) = crashed_pod(&diagnosis) {
        evidence.previous_log = Some((pod.clone(), previous_log(target, ns, &pod).await));
        diagnosis = diagnose(&evidence);
    }
    match format {
        Some(format) => output::print(&output::render_machine(&diagnosis, format)?)?,
        None => output::print(&render_detail(&diagnosis, Timestamp::now(), palette))?,
    }
    if diagnosis.ready {
        Ok(())
    } else {
        Err(Error::NotReady(format!(
            "{name} is not Ready ({:?})",
            diagnosis.cause
        )))
    }
}

/// Every runtime in scope, diagnosed from four lists (no Events, no logs:
/// the one-line cause comes from the objects' own status).
async fn triage(target: &Target, format: Option<OutputFormat>, palette: Palette) -> Result<()> {
    let scope = target.scope();
    let runtimes = target
        .list_all(
            &target.runtimes_in_scope(),
            ListParams::default(),
            Request::new("list", crate::error::RUNTIMES).namespace(scope),
        )
        .await?;
    let selector = ListParams::default().labels(&managed_selector());
    let (deployments, replica_sets, pods) = tokio::join!(
        read_list::<Deployment>(target, scope, selector.clone(), DEPLOYMENTS),
        read_list::<ReplicaSet>(target, scope, selector.clone(), REPLICA_SETS),
        read_list::<Pod>(target, scope, selector.clone(), PODS),
    );
    let deployments = by_runtime(deployments, |d: &Deployment| Some(d.name_any()));
    let replica_sets = by_runtime(replica_sets, instance_of);
    let pods = by_runtime(pods, instance_of);
    let mut all: Vec<Diagnosis> = runtimes
        .into_iter()
        .map(|rt| {
            let key = (rt.namespace().unwrap_or_default(), rt.name_any());
            let evidence = Evidence {
                deployment: pick(&deployments, &key).map(|mut d| d.pop()),
                replica_sets: pick(&replica_sets, &key),
                pods: pick(&pods, &key),
                events: None,
                autoscaler: None,
                endpoints: None,
                previous_log: None,
                runtime: rt,
            };
            diagnose(&evidence)
        })
        .collect();
    all.sort_by(|a, b| (&a.namespace, &a.name).cmp(&(&b.namespace, &b.name)));
    match format {
        Some(format) => {
            let list = serde_json::json!({"items": all});
            output::print(&output::render_machine(&list, format)?)?;
        }
        None if all.is_empty() => eprintln!("{}", super::status::nothing_found(target)),
        None => output::print(&render_triage(&all, palette))?,
    }
    let failing = all.iter().filter(|d| !d.ready).count();
    if failing == 0 {
        Ok(())
    } else {
        Err(Error::NotReady(format!(
            "{failing} of {} runtimes are not Ready",
            all.len()
        )))
    }
}

/// Whatever the operator manages, of every runtime.
fn managed_selector() -> String {
    format!(
        "{}={},{}={}",
        keys::NAME,
        keys::NAME_VALUE,
        keys::MANAGED_BY,
        keys::MANAGED_BY_VALUE
    )
}

fn instance_of<K: Resource>(object: &K) -> Option<String> {
    object.labels().get(keys::INSTANCE).cloned()
}

type ByRuntime<K> = Read<BTreeMap<(String, String), Vec<K>>>;

/// A list's objects by (namespace, runtime), as `runtime_of` names it.
fn by_runtime<K: Resource>(
    read: Read<Vec<K>>,
    runtime_of: impl Fn(&K) -> Option<String>,
) -> ByRuntime<K> {
    read.map(|items| {
        let mut map: BTreeMap<(String, String), Vec<K>> = BTreeMap::new();
        for item in items {
            if let Some(runtime) = runtime_of(&item) {
                map.entry((item.namespace().unwrap_or_default(), runtime))
                    .or_default()
                    .push(item);
            }
        }
        map
    })
}

fn pick<K: Clone>(read: &ByRuntime<K>, key: &(String, String)) -> Read<Vec<K>> {
    read.as_ref()
        .map(|map| map.get(key).cloned().unwrap_or_default())
}

/// The pod whose previous run's log says why it crashed: the one the
/// verdict names, when the cause is a crash.
fn crashed_pod(d: &Diagnosis) -> Option<String> {
    if !matches!(d.cause, Cause::CrashLoop | Cause::OOMKilled) {
        return None;
    }
    d.pod.clone()
}

async fn previous_log(target: &Target, ns: &str, pod: &str) -> Read<Vec<String>> {
    let pods: Api<Pod> = Api::namespaced(target.client.clone(), ns);
    let params = LogParams {
        container: Some(RUNTIME_CONTAINER.to_string()),
        previous: true,
        tail_lines: Some(LOG_LINES),
        ..LogParams::default()
    };
    match log_lines(&pods, pod, &params).await {
        // The kubelet keeps no log of the previous run (or cannot serve it).
        Err(kube::Error::Api(status)) if status.code == 404 => Read::Failed(format!(
            "the kubelet has no log of {pod}'s previous run to show"
        )),
        result => classify(target, log_request(target, pod), result),
    }
}

/// A get that may find nothing.
async fn read_one<K>(
    target: &Target,
    ns: &str,
    name: &str,
    resource: &'static str,
) -> Read<Option<K>>
where
    K: Resource<Scope = k8s_openapi::NamespaceResourceScope> + Clone + Debug + DeserializeOwned,
    <K as Resource>::DynamicType: Default,
{
    let api: Api<K> = Api::namespaced(target.client.clone(), ns);
    let request = Request::new("get", resource).namespace(Some(ns)).name(name);
    classify(target, request, api.get_opt(name).await)
}

/// A list in `scope` (every namespace for `None`), in pages.
async fn read_list<K>(
    target: &Target,
    scope: Option<&str>,
    params: ListParams,
    resource: &'static str,
) -> Read<Vec<K>>
where
    K: Resource<Scope = k8s_openapi::NamespaceResourceScope> + Clone + Debug + DeserializeOwned,
    <K as Resource>::DynamicType: Default,
{
    let api: Api<K> = match scope {
        Some(ns) => Api::namespaced(target.client.clone(), ns),
        None => Api::all(target.client.clone()),
    };
    let request = Request::new("list", resource).namespace(scope);
    match target.list_all(&api, params, request).await {
        Ok(items) => Read::Got(items),
        Err(Error::Forbidden { request, .. }) => Read::Forbidden(sentence(&request)),
        Err(e) => Read::Failed(e.to_string()),
    }
}

fn classify<T>(target: &Target, request: Request, result: kube::Result<T>) -> Read<T> {
    match result {
        Ok(t) => Read::Got(t),
        Err(kube::Error::Api(status)) if status.code == 403 => Read::Forbidden(sentence(&request)),
        Err(e) => Read::Failed(target.fail(request, e).to_string()),
    }
}

/// "list pods in namespace ai": the permission a refused read needed.
fn sentence(request: &Request) -> String {
    let scope = request
        .namespace
        .as_ref()
        .map_or("in every namespace".to_string(), |ns| {
            format!("in namespace {ns}")
        });
    format!("{} {} {scope}", request.verb, request.resource)
}
