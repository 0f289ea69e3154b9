//! `kubectl trussium create NAME --provider TYPE --model M [...]`: writes a
//! TrussiumRuntime from the shared API types, checked by the CRD's own rules
//! (the same messages) before any request; prints it (`--dry-run=client`),
//! has the cluster's CRD judge it (`--dry-run=server`), or creates it and
//! optionally waits until it is Ready.

use std::time::Duration;

use clap::{Args, ValueEnum};
use kube::api::PostParams;
use kube::core::ObjectMeta;
use trussium_api::image::{check_digest, check_tag, split_reference};
use trussium_api::validation::{MAX_REPLICAS, problems};
use trussium_api::{
    ImageSpec, ProviderSpec, ProviderType, SecretKeyReference, ServiceSpec, TrussiumRuntime,
    TrussiumRuntimeSpec, duration,
};

use crate::cli::GlobalFlags;
use crate::client::{Target, connect};
use crate::error::{Error, Result};
use crate::output::{self, OutputFormat, Palette};
use crate::rollout::{self, Action};

/// The image a runtime gets without `--image`: the runtime release this
/// plugin's samples and docs name.
pub const DEFAULT_IMAGE: &str = "ghcr.io/trussiumhq/trussium:v1.22.0";

#[derive(Args, Debug)]
pub struct CreateArgs {
    /// The new runtime's name
    // A plain String, not a RuntimeName: completion offers the existing
    // runtimes' names for those, and this one is new.
    #[arg(value_name = "NAME")]
    pub name: String,

    /// The model provider
    #[arg(long, value_enum, value_name = "TYPE")]
    pub provider: Provider,

    /// The provider's model, e.g. gpt-5 or llama3.2
    #[arg(long, value_name = "MODEL", value_parser = parse_model)]
    pub model: String,

    /// The provider's (or a compatible) API endpoint, http:// or https://
    #[arg(long = "base-url", value_name = "URL")]
    pub base_url: Option<String>,

    /// The Secret and key holding the provider's credential, NAME:KEY (the value is never read)
    #[arg(long, value_name = "NAME:KEY", value_parser = parse_secret_key)]
    pub credentials_secret: Option<(String, String)>,

    /// The runtime image, REPOSITORY:TAG or REPOSITORY@sha256:DIGEST
    #[arg(long, value_name = "IMAGE", default_value = DEFAULT_IMAGE, value_parser = parse_image)]
    pub image: (String, ImageRef),

    /// Runtime replicas, 0 to 1000
    #[arg(long, value_name = "N", default_value_t = 1, value_parser = clap::value_parser!(i32).range(0..=i64::from(MAX_REPLICAS)))]
    pub replicas: i32,

    /// none: create it; client: only print it; server: have the cluster's CRD check it, create nothing
    #[arg(long = "dry-run", value_enum, value_name = "MODE", default_value = "none", num_args = 0..=1, require_equals = true, default_missing_value = "client")]
    pub dry_run: DryRun,

    /// Print the runtime (as created, or as it would be) instead of a summary
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,

    /// Wait until the runtime is Ready
    #[arg(long)]
    pub wait: bool,

    /// How long --wait waits, e.g. 90s, 5m, 1h30m
    #[arg(long, value_name = "DURATION", default_value = "5m", value_parser = duration::parse, requires = "wait")]
    pub timeout: Duration,
}

pub const HELP: &str = "\
Writes the runtime from the API's own types and checks it with the CRD's own
rules before any request. --dry-run=client (or --dry-run) prints it and
changes nothing (-o yaml gives a manifest to apply as is); --dry-run=server
has the cluster's CRD check it and creates nothing. A runtime of that name
that exists already is left as it is. The credential's Secret is referenced,
never read: create it yourself (kubectl create secret generic NAME
--from-literal=KEY=...).

Examples:
  kubectl trussium create private-ai --provider ollama --model llama3.2 \\
    --base-url http://ollama.ollama:11434/v1 --wait
  kubectl trussium create gateway --provider openai --model gpt-5 \\
    --credentials-secret openai-credentials:api-key --replicas 2
  kubectl trussium create gateway --provider openai --model gpt-5 --dry-run=client -o yaml";

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Provider {
    Openai,
    Ollama,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum DryRun {
    None,
    Client,
    Server,
}

/// A tag or a digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ImageRef {
    Tag(String),
    Digest(String),
}

fn parse_model(value: &str) -> Result<String, String> {
    match value.chars().count() {
        0 => Err("the model must not be empty".into()),
        n if n > 256 => Err(format!("the model has {n} characters; at most 256")),
        _ => Ok(value.to_string()),
    }
}

fn parse_secret_key(value: &str) -> Result<(String, String), String> {
    match value.split_once(':') {
        Some((name, key)) if !name.is_empty() && !key.is_empty() => {
            Ok((name.to_string(), key.to_string()))
        }
        _ => Err(format!(
            "{value:?} is not NAME:KEY, e.g. openai-credentials:api-key"
        )),
    }
}

/// `REPOSITORY:TAG` or `REPOSITORY@sha256:…`; the repository is checked
/// with the runtime's other rules.
fn parse_image(value: &str) -> Result<(String, ImageRef), String> {
    match split_reference(value) {
        (repository, _, Some(digest)) => {
            check_digest(digest).map_err(|e| e.to_string())?;
            Ok((repository.to_string(), ImageRef::Digest(digest.to_string())))
        }
        (repository, Some(tag), None) => {
            check_tag(tag).map_err(|e| e.to_string())?;
            Ok((repository.to_string(), ImageRef::Tag(tag.to_string())))
        }
        (_, None, None) => Err(format!(
            "{value:?} names no tag or digest: write REPOSITORY:TAG or REPOSITORY@sha256:DIGEST"
        )),
    }
}

/// The runtime the arguments describe, in `namespace` (none for a client
/// dry run without -n), or every rule of the CRD it breaks, with the CRD's
/// messages.
pub fn runtime(args: &CreateArgs, namespace: Option<&str>) -> Result<TrussiumRuntime> {
    let (repository, reference) = &args.image;
    let (tag, digest) = match reference {
        ImageRef::Tag(tag) => (Some(tag.clone()), None),
        ImageRef::Digest(digest) => (None, Some(digest.clone())),
    };
    let spec = TrussiumRuntimeSpec {
        image: ImageSpec {
            repository: repository.clone(),
            tag,
            digest,
            pull_policy: Default::default(),
        },
        replicas: args.replicas,
        provider: ProviderSpec {
            type_: match args.provider {
                Provider::Openai => ProviderType::Openai,
                Provider::Ollama => ProviderType::Ollama,
            },
            model: args.model.clone(),
            base_url: args.base_url.clone(),
            credentials_secret_ref: args.credentials_secret.as_ref().map(|(name, key)| {
                SecretKeyReference {
                    name: name.clone(),
                    key: key.clone(),
                }
            }),
        },
        image_pull_secrets: None,
        runtime: None,
        service: ServiceSpec::default(),
        network_policy: None,
        autoscaling: None,
        resources: None,
        pod_metadata: None,
        scheduling: None,
    };
    let rt = TrussiumRuntime {
        metadata: ObjectMeta {
            name: Some(args.name.clone()),
            namespace: namespace.map(str::to_string),
            ..ObjectMeta::default()
        },
        spec,
        status: None,
    };
    let found = problems(&rt);
    if found.is_empty() {
        Ok(rt)
    } else {
        let lines: Vec<String> = found.iter().map(ToString::to_string).collect();
        Err(Error::Usage(format!(
            "not creating {}: {}",
            args.name,
            lines.join("; ")
        )))
    }
}

/// Flags that cannot go together, beyond what clap says.
fn check_flags(args: &CreateArgs) -> Result<()> {
    if args.wait && args.dry_run != DryRun::None {
        return Err(Error::Usage(
            "--wait waits for a runtime that a dry run does not create: drop one of them".into(),
        ));
    }
    if args.wait && args.replicas == 0 {
        return Err(Error::Usage(
            "--wait waits until the runtime is Ready, which with --replicas 0 it never is: drop one of them"
                .into(),
        ));
    }
    Ok(())
}

pub async fn run(global: &GlobalFlags, args: &CreateArgs, palette: Palette) -> Result<()> {
    check_flags(args)?;
    if args.dry_run == DryRun::Client {
        // No request: the namespace only when given.
        let namespace = global.namespace.as_ref().map(ToString::to_string);
        let rt = runtime(args, namespace.as_deref())?;
        let format = args.output.unwrap_or(OutputFormat::Yaml);
        return output::print(&output::render_machine(&manifest(&rt)?, format)?);
    }
    // Every rule checked before connecting.
    runtime(args, None)?;
    let target = connect(global).await?;
    let rt = runtime(args, Some(&target.namespace))?;
    create(&target, args, rt, palette).await
}

async fn create(
    target: &Target,
    args: &CreateArgs,
    rt: TrussiumRuntime,
    palette: Palette,
) -> Result<()> {
    let name = args.name.clone();
    let params = PostParams {
        dry_run: args.dry_run == DryRun::Server,
        field_manager: Some("kubectl-trussium".into()),
    };
    let created = target.runtimes().create(&params, &rt).await.map_err(|e| {
        if is_already_exists(&e) {
            Error::AlreadyExists {
                name: name.clone(),
                namespace: target.namespace.clone(),
            }
        } else {
            target.fail(target.runtime_request("create", &name), e)
        }
    })?;
    let image = created.spec.image.reference();
    if let Some(format) = args.output {
        output::print(&output::render_machine(&manifest(&created)?, format)?)?;
    } else if args.dry_run == DryRun::Server {
        output::println(&format!(
            "{name}: the cluster's CRD accepts it (namespace {}, {image}); nothing was created",
            target.namespace
        ))?;
    } else {
        output::println(&format!(
            "{name} created in namespace {} ({image}, {} replica{})",
            target.namespace,
            created.spec.replicas,
            if created.spec.replicas == 1 { "" } else { "s" }
        ))?;
    }
    if args.dry_run == DryRun::Server {
        return Ok(());
    }
    if !args.wait {
        if args.output.is_none() {
            output::println(&palette.dim(&format!(
                "Follow it with: kubectl trussium status {name} -n {} --watch",
                target.namespace
            )))?;
        }
        return Ok(());
    }
    let generation = created.metadata.generation.unwrap_or(1);
    rollout::wait(
        Action::FirstRollout,
        target,
        created,
        generation,
        &image,
        args.timeout,
        palette,
    )
    .await
}

/// The object as a manifest: apiVersion and kind first, no server fields.
fn manifest(rt: &TrussiumRuntime) -> Result<serde_json::Value> {
    let mut value = serde_json::to_value(rt).map_err(|e| Error::Io(std::io::Error::other(e)))?;
    if let Some(metadata) = value
        .get_mut("metadata")
        .and_then(serde_json::Value::as_object_mut)
    {
        for server_field in [
            "managedFields",
            "creationTimestamp",
            "resourceVersion",
            "uid",
        ] {
            metadata.remove(server_field);
        }
    }
    if let Some(object) = value.as_object_mut() {
        object.remove("status");
    }
    Ok(value)
}

fn is_already_exists(err: &kube::Error) -> bool {
    matches!(err, kube::Error::Api(status) if status.code == 409 && status.reason == "AlreadyExists")
}

#[cfg(test)]
mod tests {
    use clap::Parser;
    use serde_json::json;

    use super::*;
    use crate::cli::{Cli, Command};

    fn args(line: &[&str]) -> std::result::Result<CreateArgs, clap::Error> {
        let mut all = vec!["kubectl-trussium", "create"];
        all.extend_from_slice(line);
        match Cli::try_parse_from(all)?.command {
            Command::Create(args) => Ok(args),
            other => panic!("parsed as {other:?}"),
        }
    }

    fn ok(line: &[&str]) -> CreateArgs {
        args(line).unwrap_or_else(|e| panic!("{line:?}: {e}"))
    }

    fn refused(line: &[&str]) -> String {
        match args(line) {
            Ok(a) => match runtime(&a, Some("ai")) {
                Ok(rt) => panic!("{line:?} accepted: {rt:?}"),
                Err(e) => {
                    assert_eq!(e.exit(), crate::exit::Exit::Usage, "{e}");
                    e.to_string()
                }
            },
            Err(e) => {
                assert_eq!(e.exit_code(), 2, "{e}");
                e.to_string()
            }
        }
    }

    #[test]
    fn the_smallest_runtime_is_the_minimal_sample() -> Result<()> {
        let rt = runtime(
            &ok(&["rt", "--provider", "ollama", "--model", "llama3.2"]),
            None,
        )?;
        let value = manifest(&rt)?;
        assert_eq!(value["apiVersion"], "runtime.trussium.io/v1beta1");
        assert_eq!(value["kind"], "TrussiumRuntime");
        assert_eq!(value["metadata"], json!({"name": "rt"}));
        assert_eq!(
            value["spec"]["image"],
            json!({"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0", "pullPolicy": "IfNotPresent"})
        );
        assert_eq!(
            value["spec"]["provider"],
            json!({"type": "ollama", "model": "llama3.2"})
        );
        assert_eq!(value["spec"]["replicas"], 1);
        assert!(value.get("status").is_none());
        Ok(())
    }

    #[test]
    fn every_flag_lands_in_its_field() -> Result<()> {
        let digest = format!("sha256:{}", "a".repeat(64));
        let rt = runtime(
            &ok(&[
                "gw",
                "--provider",
                "openai",
                "--model",
                "gpt-5",
                "--base-url",
                "https://api.openai.com/v1",
                "--credentials-secret",
                "openai-credentials:api-key",
                "--image",
                &format!("registry.local:5000/t/trussium@{digest}"),
                "--replicas",
                "3",
            ]),
            Some("team-a"),
        )?;
        let value = manifest(&rt)?;
        assert_eq!(
            value["metadata"],
            json!({"name": "gw", "namespace": "team-a"})
        );
        assert_eq!(
            value["spec"]["image"],
            json!({"repository": "registry.local:5000/t/trussium", "digest": digest, "pullPolicy": "IfNotPresent"})
        );
        assert_eq!(
            value["spec"]["provider"],
            json!({"type": "openai", "model": "gpt-5", "baseURL": "https://api.openai.com/v1",
                   "credentialsSecretRef": {"name": "openai-credentials", "key": "api-key"}})
        );
        assert_eq!(value["spec"]["replicas"], 3);
        Ok(())
    }

    #[test]
    fn bad_input_is_refused_with_the_crds_message_before_any_request() {
        let base = ["rt", "--provider", "ollama", "--model", "m"];
        let with = |extra: &[&str]| {
            let mut line = base.to_vec();
            line.extend_from_slice(extra);
            refused(&line)
        };
        assert!(
            with(&["--image", "ghcr.io/t/trussium:bad tag"]).contains("tag"),
            "tag"
        );
        assert!(with(&["--image", "ghcr.io/t/trussium"]).contains("names no tag or digest"));
        assert!(with(&["--image", "Ghcr.io/UPPER:v1"]).contains(
            "image.repository must be an image name such as ghcr.io/trussiumhq/trussium"
        ));
        assert!(
            with(&["--base-url", "ollama:11434"])
                .contains("provider.baseURL must be an http:// or https:// URL")
        );
        assert!(
            with(&["--base-url", "https://user:pw@host/v1"])
                .contains("must not contain user information")
        );
        assert!(with(&["--credentials-secret", "no-key"]).contains("is not NAME:KEY"));
        assert!(
            with(&["--credentials-secret", "Bad_Name:k"])
                .contains("provider.credentialsSecretRef.name")
        );
        assert!(with(&["--replicas", "1001"]).contains("1001"));
        assert!(with(&["--replicas", "-1"]).contains("-1"));
        let bad_model = refused(&["rt", "--provider", "ollama", "--model", "a\u{1b}[31m"]);
        assert!(
            bad_model.contains("provider.model must be printable"),
            "{bad_model}"
        );
        assert!(
            refused(&["rt", "--provider", "ollama", "--model", ""]).contains("must not be empty")
        );
        assert!(refused(&["rt", "--provider", "gemini", "--model", "m"]).contains("gemini"));
        assert!(
            refused(&["Bad.Name", "--provider", "ollama", "--model", "m"])
                .contains("metadata.name")
        );
        let flags = |extra: &[&str]| {
            let mut line = base.to_vec();
            line.extend_from_slice(extra);
            check_flags(&ok(&line)).map_err(|e| e.to_string())
        };
        assert!(
            flags(&["--dry-run", "--wait"]).is_err_and(|e| e.contains("a dry run does not create"))
        );
        assert!(flags(&["--dry-run=server", "--wait"]).is_err());
        assert!(flags(&["--dry-run=none", "--wait"]).is_ok());
        assert!(flags(&["--replicas", "0", "--wait"]).is_err_and(|e| e.contains("--replicas 0")));
        assert!(flags(&["--replicas", "0"]).is_ok());
        // kubectl's form: a mode only after '='.
        assert!(args(&["--dry-run", "rt", "--provider", "ollama", "--model", "m"]).is_ok());
        assert!(
            args(&[
                "rt",
                "--provider",
                "ollama",
                "--model",
                "m",
                "--dry-run",
                "server"
            ])
            .is_err()
        );
        assert!(
            args(&[
                "rt",
                "--provider",
                "ollama",
                "--model",
                "m",
                "--timeout",
                "1m"
            ])
            .is_err()
        );
    }

    #[test]
    fn dry_run_alone_means_client() {
        let base = ["rt", "--provider", "ollama", "--model", "m"];
        let mode = |extra: &[&str]| {
            let mut line = base.to_vec();
            line.extend_from_slice(extra);
            ok(&line).dry_run
        };
        assert_eq!(mode(&[]), DryRun::None);
        assert_eq!(mode(&["--dry-run"]), DryRun::Client);
        assert_eq!(mode(&["--dry-run=client"]), DryRun::Client);
        assert_eq!(mode(&["--dry-run=server"]), DryRun::Server);
        assert_eq!(mode(&["--dry-run=none"]), DryRun::None);
    }
}
