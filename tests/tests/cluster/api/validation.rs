//! The TrussiumRuntime API at the real API server: the CRD from `crds/` is
//! accepted (its CEL rules fit the cost budget), the samples are accepted and
//! read back with the schema defaults, every manifest of the invalid corpus
//! (`tests/fixtures/invalid/`) is refused with the message it documents, and
//! the valid edge cases (`tests/fixtures/valid/`) are accepted.
//!
//! `source tests/cluster/env.sh && cargo test -p trussium-e2e --test cluster api::validation -- --include-ignored`

use super::support::{
    CRD_NAME, Fixture, as_deprecated, deprecated_api, dynamic_api, load_fixtures, refusal_message,
    samples,
};
use kube::api::{DynamicObject, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use serde_json::{Value, json};
use trussium_api::TrussiumRuntime;
use trussium_e2e::{
    BoxError, TestNamespace, TestResult, install_crd, kubectl, kubectl_ok, require_cluster,
};

const DIGEST: &str = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

/// A namespace of its own, with the CRD installed.
async fn setup(prefix: &str) -> Result<TestNamespace, BoxError> {
    require_cluster();
    let namespace = TestNamespace::create(prefix).await?;
    install_crd(&namespace.client).await?;
    Ok(namespace)
}

fn spec_of(object: &DynamicObject) -> Value {
    object.data.get("spec").cloned().unwrap_or(Value::Null)
}

fn missing_substrings<'a>(message: &str, expects: &'a [String]) -> Vec<&'a str> {
    expects
        .iter()
        .filter(|e| !message.contains(e.as_str()))
        .map(String::as_str)
        .collect()
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_crd_from_crds_is_accepted_and_established() -> TestResult {
    require_cluster();
    let client = trussium_e2e::admin_client().await?;
    let stored = install_crd(&client).await?;
    let conditions = stored
        .status
        .as_ref()
        .and_then(|s| s.conditions.clone())
        .unwrap_or_default();
    let status_of = |type_: &str| {
        conditions
            .iter()
            .find(|c| c.type_ == type_)
            .map(|c| c.status.clone())
    };
    assert_eq!(status_of("Established").as_deref(), Some("True"));
    assert_eq!(status_of("NamesAccepted").as_deref(), Some("True"));
    assert_ne!(
        status_of("NonStructuralSchema").as_deref(),
        Some("True"),
        "{conditions:?}"
    );
    assert_eq!(stored.name_any(), CRD_NAME);
    // The server kept the schema as generated: every CEL rule passed its cost
    // estimate (a rule over budget makes the whole CRD apply fail).
    // Both versions (v1beta1 stored, v1alpha1 deprecated) as generated.
    let ours = trussium_api::crd::crd();
    let versions = |crd: &k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition| {
        crd.spec
            .versions
            .iter()
            .map(|v| {
                json!({"name": v.name, "served": v.served, "storage": v.storage,
                       "deprecated": v.deprecated, "deprecationWarning": v.deprecation_warning,
                       "schema": v.schema})
            })
            .collect::<Vec<_>>()
    };
    assert!(
        versions(&stored) == versions(&ours),
        "the stored CRD differs from crd()"
    );
    let stored_versions = stored
        .status
        .as_ref()
        .and_then(|s| s.stored_versions.clone())
        .unwrap_or_default();
    assert!(
        stored_versions
            .iter()
            .any(|v| v == trussium_api::crd::STORAGE_VERSION),
        "storedVersions: {stored_versions:?}"
    );
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn every_sample_is_accepted_and_reads_back_with_the_defaults() -> TestResult {
    let ns = setup("api-samples").await?;
    let typed: Api<TrussiumRuntime> = ns.api();
    let raw = dynamic_api(&ns.client, &ns.name);
    let samples = samples()?;
    let stems: Vec<&str> = samples.iter().map(|(stem, _)| stem.as_str()).collect();
    assert_eq!(stems, ["full", "minimal", "openai"]);

    for (stem, path) in &samples {
        let path_arg = path.to_string_lossy();
        let out = kubectl_ok(&["apply", "-n", &ns.name, "-f", &path_arg], None).await?;
        assert!(out.contains("created"), "{stem}: {out}");

        // serde fills in the same defaults as the schema, so the sample read
        // by the types is what the API server must have stored.
        let expected: TrussiumRuntime = serde_yaml::from_str(&std::fs::read_to_string(path)?)?;
        let stored = typed.get(&expected.name_any()).await?;
        assert_eq!(stored.spec, expected.spec, "{stem}: stored spec");

        let spec = spec_of(&raw.get(&expected.name_any()).await?);
        assert_eq!(spec["image"]["pullPolicy"], "IfNotPresent", "{stem}");
        match stem.as_str() {
            "minimal" => {
                assert_eq!(spec["replicas"], 1);
                // `service` is omitted from the sample entirely.
                assert_eq!(spec["service"], json!({"type": "ClusterIP", "port": 9000}));
                assert_eq!(spec.get("autoscaling"), None);
                assert_eq!(spec.get("networkPolicy"), None);
            }
            "openai" => {
                assert_eq!(spec["replicas"], 2);
                assert_eq!(spec["service"], json!({"type": "ClusterIP", "port": 9000}));
                assert_eq!(
                    spec["provider"]["credentialsSecretRef"],
                    json!({"name": "openai-credentials", "key": "api-key"})
                );
            }
            "full" => {
                assert_eq!(spec["replicas"], 2);
                assert_eq!(spec["service"], json!({"type": "NodePort", "port": 8080}));
                assert_eq!(
                    spec["autoscaling"],
                    json!({"enabled": true, "minReplicas": 2, "maxReplicas": 10,
                           "targetCPUUtilizationPercentage": 80})
                );
                assert_eq!(spec["networkPolicy"]["enabled"], true);
                assert_eq!(spec["resources"]["requests"]["cpu"], "250m");
            }
            other => return Err(format!("unexpected sample {other}").into()),
        }
    }

    // The documented way, all at once: nothing changes, the defaults the API
    // server filled in cause no diff.
    let dir = trussium_e2e::repo_root().join("deploy/samples");
    let out = kubectl_ok(
        &["apply", "-n", &ns.name, "-f", &dir.to_string_lossy()],
        None,
    )
    .await?;
    assert_eq!(out.matches("unchanged").count(), 3, "{out}");
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn defaults_fill_in_partial_sections_and_nulls_mean_omitted() -> TestResult {
    let ns = setup("api-defaults").await?;
    let raw = dynamic_api(&ns.client, &ns.name);
    let create = async |name: &str, spec: Value| -> Result<Value, BoxError> {
        let object: DynamicObject = serde_json::from_value(json!({
            "apiVersion": "runtime.trussium.io/v1beta1",
            "kind": "TrussiumRuntime",
            "metadata": {"name": name},
            "spec": spec,
        }))?;
        Ok(spec_of(&raw.create(&PostParams::default(), &object).await?))
    };
    let image = json!({"repository": "ghcr.io/trussiumhq/trussium", "tag": "v1.22.0"});
    let provider = json!({"type": "ollama", "model": "llama3.2"});

    let spec = create(
        "sections",
        json!({"image": image, "provider": provider,
               "service": {"type": "NodePort"},
               "autoscaling": {"enabled": false},
               "networkPolicy": {}}),
    )
    .await?;
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec["service"], json!({"type": "NodePort", "port": 9000}));
    assert_eq!(
        spec["autoscaling"],
        json!({"enabled": false, "minReplicas": 1, "targetCPUUtilizationPercentage": 80})
    );
    assert_eq!(spec["networkPolicy"], json!({"enabled": false}));

    let spec = create(
        "port-only",
        json!({"image": image, "provider": provider, "service": {"port": 8080}}),
    )
    .await?;
    assert_eq!(spec["service"], json!({"type": "ClusterIP", "port": 8080}));

    // An explicit null is pruned before defaulting: never stored, and a null
    // `service` gets the default Service.
    let spec = create(
        "nulls",
        json!({"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": null, "digest": DIGEST},
               "provider": provider, "service": null, "autoscaling": null, "replicas": null}),
    )
    .await?;
    assert_eq!(
        spec["image"],
        json!({"repository": "ghcr.io/trussiumhq/trussium", "digest": DIGEST, "pullPolicy": "IfNotPresent"})
    );
    assert_eq!(spec["service"], json!({"type": "ClusterIP", "port": 9000}));
    assert_eq!(spec["replicas"], 1);
    assert_eq!(spec.get("autoscaling"), None);

    // A null tag does not count as a tag.
    let refused = create(
        "null-tag",
        json!({"image": {"repository": "ghcr.io/trussiumhq/trussium", "tag": null},
               "provider": provider}),
    )
    .await;
    let message = refused.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(
        message.contains("exactly one of image.tag or image.digest must be set"),
        "{message}"
    );
    ns.delete().await;
    Ok(())
}

fn corpus() -> Result<Vec<Fixture>, BoxError> {
    let corpus = load_fixtures("invalid")?;
    assert!(
        corpus.len() >= 25,
        "the invalid corpus has only {} manifests",
        corpus.len()
    );
    for fixture in &corpus {
        assert!(
            !fixture.expects.is_empty(),
            "{}: no `# expect:` line",
            fixture.path.display()
        );
        assert_eq!(
            fixture.name()?,
            fixture.case,
            "{}: metadata.name should be the file name",
            fixture.path.display()
        );
    }
    Ok(corpus)
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn kubectl_apply_refuses_every_invalid_manifest_with_its_message() -> TestResult {
    let ns = setup("api-invalid-kubectl").await?;
    let raw = dynamic_api(&ns.client, &ns.name);
    let mut failures = Vec::new();
    let corpus = corpus()?;
    for fixture in &corpus {
        let run = kubectl(&["apply", "-n", &ns.name, "-f", "-"], Some(&fixture.text)).await?;
        let output = run.both();
        if run.success {
            failures.push(format!("{}: accepted:\n{output}", fixture.case));
        } else {
            let missing = missing_substrings(&run.stderr, &fixture.expects);
            if !missing.is_empty() {
                failures.push(format!(
                    "{}: message lacks {missing:?}:\n{output}",
                    fixture.case
                ));
            }
        }
        if raw.get_opt(&fixture.case).await?.is_some() {
            failures.push(format!(
                "{}: the object exists after the refusal",
                fixture.case
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} invalid manifests misbehaved:\n{}",
        failures.len(),
        corpus.len(),
        failures.join("\n---\n")
    );
    ns.delete().await;
    Ok(())
}

/// `unknown field "spec.image.version"` → `/spec/image/version`.
fn unknown_field_pointer(fixture: &Fixture) -> Option<String> {
    fixture.expects.iter().find_map(|e| {
        let field = e.strip_prefix("unknown field \"")?.strip_suffix('"')?;
        Some(format!("/{}", field.replace('.', "/")))
    })
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn the_api_refuses_every_invalid_manifest_with_its_message() -> TestResult {
    let ns = setup("api-invalid-api").await?;
    let raw = dynamic_api(&ns.client, &ns.name);
    let deprecated = deprecated_api(&ns.client, &ns.name);
    let strict = PatchParams::apply("trussium-e2e").validation_strict();
    let mut failures = Vec::new();
    let corpus = corpus()?;
    for fixture in &corpus {
        let object = fixture.object()?;
        let name = fixture.case.as_str();
        if fixture.pruned_by_default {
            // A client that does not ask for strict field validation (a plain
            // create) gets the unknown field dropped, never stored...
            let pointer = unknown_field_pointer(fixture).ok_or("no unknown field named")?;
            match raw.create(&PostParams::default(), &object).await {
                Ok(created) => {
                    let stored = serde_json::to_value(&created)?;
                    if stored.pointer(&pointer).is_some() {
                        failures.push(format!("{name}: {pointer} was stored"));
                    }
                    raw.delete(name, &Default::default()).await?;
                    trussium_e2e::wait_for(
                        &format!("{name} to be deleted"),
                        std::time::Duration::from_secs(30),
                        async || Ok(raw.get_opt(name).await?.is_none().then_some(())),
                    )
                    .await?;
                }
                Err(e) => failures.push(format!("{name}: plain create refused: {e}")),
            }
            // ...and one that asks (as kubectl does) is refused. Server-side
            // apply words it differently from kubectl's create/patch:
            // `.spec.image.version: field not declared in schema`.
            let expects = [format!(
                "{}: field not declared in schema",
                pointer.replace('/', ".")
            )];
            match raw.patch(name, &strict, &Patch::Apply(&object)).await {
                Ok(_) => failures.push(format!("{name}: strict server-side apply accepted")),
                Err(e) => {
                    let message = refusal_message(&e).unwrap_or_else(|| e.to_string());
                    let missing = missing_substrings(&message, &expects);
                    if !missing.is_empty() {
                        failures.push(format!("{name}: message lacks {missing:?}: {message}"));
                    }
                }
            }
        } else {
            let mut messages = Vec::new();
            for (version, api) in [("v1beta1", &raw), ("v1alpha1", &deprecated)] {
                let object = match version {
                    "v1alpha1" => as_deprecated(object.clone()),
                    _ => object.clone(),
                };
                match api.create(&PostParams::default(), &object).await {
                    Ok(_) => failures.push(format!("{name}: accepted as {version}")),
                    Err(e) => {
                        let message = refusal_message(&e).unwrap_or_else(|| e.to_string());
                        let missing = missing_substrings(&message, &fixture.expects);
                        if !missing.is_empty() {
                            failures.push(format!(
                                "{name}: message as {version} lacks {missing:?}: {message}"
                            ));
                        }
                        messages.push(message.replace("v1alpha1", "v1beta1"));
                    }
                }
            }
            // The deprecated version refuses it in the same words: one schema.
            if let [beta, alpha] = messages.as_slice()
                && beta != alpha
            {
                failures.push(format!(
                    "{name}: refused differently:\nv1beta1: {beta}\nv1alpha1: {alpha}"
                ));
            }
        }
        if raw.get_opt(name).await?.is_some() {
            failures.push(format!("{name}: the object exists after the refusal"));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} invalid manifests misbehaved:\n{}",
        failures.len(),
        corpus.len(),
        failures.join("\n---\n")
    );
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_embedded_credential_is_refused_without_echoing_it() -> TestResult {
    let ns = setup("api-api-key").await?;
    let raw = dynamic_api(&ns.client, &ns.name);
    let secret = "sk-live-0123456789-never-echo-me";
    let manifest = format!(
        "apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata:
  name: leaky
spec:
  image:
    repository: ghcr.io/trussiumhq/trussium
    tag: v1.22.0
  provider:
    type: openai
    model: gpt-5
    apiKey: {secret}
"
    );
    let run = kubectl(&["apply", "-n", &ns.name, "-f", "-"], Some(&manifest)).await?;
    assert!(!run.success, "{}", run.both());
    assert!(
        run.stderr.contains("provider.apiKey is not supported"),
        "{}",
        run.stderr
    );
    assert!(
        !run.both().contains(secret),
        "kubectl echoed the credential"
    );

    let object: DynamicObject = serde_yaml::from_str(&manifest)?;
    let error = raw
        .create(&PostParams::default(), &object)
        .await
        .err()
        .ok_or("the API accepted provider.apiKey")?;
    let message = error.to_string();
    assert!(
        message.contains("provider.apiKey is not supported"),
        "{message}"
    );
    assert!(
        !message.contains(secret),
        "the API server echoed the credential"
    );
    assert!(raw.get_opt("leaky").await?.is_none());
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn valid_edge_cases_are_accepted() -> TestResult {
    let ns = setup("api-valid").await?;
    let typed: Api<TrussiumRuntime> = ns.api();
    let raw = dynamic_api(&ns.client, &ns.name);
    let fixtures = load_fixtures("valid")?;
    assert!(
        fixtures.len() >= 10,
        "only {} valid fixtures",
        fixtures.len()
    );
    let mut failures = Vec::new();
    for fixture in &fixtures {
        // Through kubectl...
        let run = kubectl(&["apply", "-n", &ns.name, "-f", "-"], Some(&fixture.text)).await?;
        if !run.success {
            failures.push(format!(
                "{}: refused by kubectl:\n{}",
                fixture.case,
                run.both()
            ));
            continue;
        }
        let expected: TrussiumRuntime = serde_yaml::from_str(&fixture.text)?;
        let stored = typed.get(&fixture.case).await?;
        if stored.spec != expected.spec {
            failures.push(format!(
                "{}: stored {:?}\nexpected {:?}",
                fixture.case, stored.spec, expected.spec
            ));
        }
        // ...and through the API (server-side dry run under another name).
        let mut object = fixture.object()?;
        object.metadata.name = Some(format!("{}-api", fixture.case));
        if let Err(e) = raw
            .create(
                &PostParams {
                    dry_run: true,
                    ..Default::default()
                },
                &object,
            )
            .await
        {
            failures.push(format!("{}: refused by the API: {e}", fixture.case));
        }
    }
    assert!(
        failures.is_empty(),
        "valid manifests refused or altered:\n{}",
        failures.join("\n---\n")
    );
    ns.delete().await;
    Ok(())
}

#[tokio::test]
#[ignore = "needs the local cluster (make test)"]
async fn an_invalid_update_is_refused_and_leaves_the_stored_object_unchanged() -> TestResult {
    let ns = setup("api-update").await?;
    let raw = dynamic_api(&ns.client, &ns.name);
    let name = "running";

    // The corpus' common base, valid, created the way a person would.
    let base = format!(
        "apiVersion: runtime.trussium.io/v1beta1
kind: TrussiumRuntime
metadata:
  name: {name}
spec:
  image:
    repository: ghcr.io/trussiumhq/trussium
    tag: v1.22.0
  provider:
    type: ollama
    model: llama3.2
"
    );
    kubectl_ok(&["apply", "-n", &ns.name, "-f", "-"], Some(&base)).await?;
    let before = raw.get(name).await?;

    // Every invalid manifest of the corpus, as an update of the running object.
    let mut failures = Vec::new();
    for fixture in &corpus()? {
        let mut value = fixture.value()?;
        value["metadata"]["name"] = json!(name);
        let manifest = serde_yaml::to_string(&value)?;
        let run = kubectl(&["apply", "-n", &ns.name, "-f", "-"], Some(&manifest)).await?;
        if run.success {
            failures.push(format!(
                "{}: update accepted:\n{}",
                fixture.case,
                run.both()
            ));
        } else {
            let missing = missing_substrings(&run.stderr, &fixture.expects);
            if !missing.is_empty() {
                failures.push(format!(
                    "{}: update message lacks {missing:?}:\n{}",
                    fixture.case,
                    run.both()
                ));
            }
        }
    }

    // Patches through the API, including the scale subresource.
    let patches = [
        (
            json!({"spec": {"replicas": -1}}),
            "should be greater than or equal to 0",
        ),
        (
            json!({"spec": {"image": {"digest": DIGEST}}}),
            "exactly one of image.tag or image.digest",
        ),
        (
            json!({"spec": {"image": {"tag": null}}}),
            "exactly one of image.tag or image.digest",
        ),
        (
            json!({"spec": {"provider": {"apiKey": "sk-x"}}}),
            "provider.apiKey is not supported",
        ),
        (
            json!({"spec": {"service": {"type": "ExternalName"}}}),
            "Unsupported value: \"ExternalName\"",
        ),
        (
            json!({"spec": {"podMetadata": {"labels": {"app.kubernetes.io/instance": "other"}}}}),
            "must not set operator-owned labels",
        ),
        (
            json!({"spec": {"autoscaling": {"enabled": true, "maxReplicas": 3}}}),
            "autoscaling.enabled requires resources.requests.cpu",
        ),
    ];
    for (patch, expect) in &patches {
        match raw
            .patch(name, &PatchParams::default(), &Patch::Merge(patch))
            .await
        {
            Ok(_) => failures.push(format!("merge patch {patch} accepted")),
            Err(e) if !e.to_string().contains(expect) => failures.push(format!(
                "merge patch {patch}: message lacks {expect:?}: {e}"
            )),
            Err(_) => {}
        }
    }
    let typed: Api<TrussiumRuntime> = ns.api();
    let scale = json!({"spec": {"replicas": -1}});
    if typed
        .patch_scale(name, &PatchParams::default(), &Patch::Merge(&scale))
        .await
        .is_ok()
    {
        failures.push("scale to -1 accepted".to_string());
    }

    // (Not the resourceVersion: an operator running against the cluster may
    // write the status meanwhile.)
    let after = raw.get(name).await?;
    assert_eq!(
        after.metadata.generation, before.metadata.generation,
        "the spec was written"
    );
    assert_eq!(spec_of(&after), spec_of(&before));
    assert_eq!(after.metadata.labels, before.metadata.labels);
    assert_eq!(
        after.metadata.annotations, before.metadata.annotations,
        "kubectl's last-applied configuration moved"
    );
    assert!(
        failures.is_empty(),
        "invalid updates misbehaved:\n{}",
        failures.join("\n---\n")
    );
    ns.delete().await;
    Ok(())
}
