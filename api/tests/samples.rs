//! Serde round trips of the shipped samples and the accepted test fixtures:
//! YAML → TrussiumRuntime → YAML → TrussiumRuntime is lossless, and no field
//! of a sample is silently dropped by the types (a misspelt serde name would
//! be: serde ignores unknown fields).

use std::path::{Path, PathBuf};

use serde_json::Value;
use trussium_api::{ProviderType, PullPolicy, ServiceType, TrussiumRuntime};

type TestResult = Result<(), Box<dyn std::error::Error>>;

fn repo_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

fn yaml_files(dir: &Path) -> Result<Vec<PathBuf>, std::io::Error> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    files.sort();
    Ok(files)
}

fn samples() -> Result<Vec<PathBuf>, std::io::Error> {
    yaml_files(&repo_root().join("deploy/samples"))
}

fn accepted_fixtures() -> Result<Vec<PathBuf>, std::io::Error> {
    yaml_files(&repo_root().join("tests/fixtures/valid"))
}

fn load(path: &Path) -> Result<TrussiumRuntime, Box<dyn std::error::Error>> {
    let text = std::fs::read_to_string(path)?;
    Ok(serde_yaml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?)
}

/// Every key (recursively) of `given` is in `produced` with the same value.
fn missing_fields(given: &Value, produced: &Value, path: &str, out: &mut Vec<String>) {
    match (given, produced) {
        (Value::Object(given), Value::Object(produced)) => {
            for (key, value) in given {
                let child = format!("{path}.{key}");
                match produced.get(key) {
                    Some(p) => missing_fields(value, p, &child, out),
                    None => out.push(child),
                }
            }
        }
        (Value::Array(given), Value::Array(produced)) if given.len() == produced.len() => {
            for (i, (g, p)) in given.iter().zip(produced).enumerate() {
                missing_fields(g, p, &format!("{path}[{i}]"), out);
            }
        }
        (g, p) if g == p => {}
        (g, p) => out.push(format!("{path}: {g} became {p}")),
    }
}

fn assert_round_trip(path: &Path) -> TestResult {
    let text = std::fs::read_to_string(path)?;
    let runtime = load(path)?;

    let yaml = serde_yaml::to_string(&runtime)?;
    let again: TrussiumRuntime = serde_yaml::from_str(&yaml)?;
    assert_eq!(again, runtime, "{}: YAML round trip", path.display());

    let json = serde_json::to_string(&runtime)?;
    let again: TrussiumRuntime = serde_json::from_str(&json)?;
    assert_eq!(again, runtime, "{}: JSON round trip", path.display());

    let given: Value = serde_yaml::from_str(&text)?;
    let produced = serde_json::to_value(&runtime)?;
    let mut missing = Vec::new();
    missing_fields(&given, &produced, "", &mut missing);
    assert!(
        missing.is_empty(),
        "{}: fields the types lose: {missing:#?}",
        path.display()
    );
    Ok(())
}

#[test]
fn samples_round_trip_without_losing_fields() -> TestResult {
    let samples = samples()?;
    let names: Vec<_> = samples
        .iter()
        .filter_map(|p| p.file_name()?.to_str())
        .collect();
    assert_eq!(names, ["full.yaml", "minimal.yaml", "openai.yaml"]);
    for sample in &samples {
        assert_round_trip(sample)?;
    }
    Ok(())
}

#[test]
fn accepted_fixtures_round_trip_without_losing_fields() -> TestResult {
    let fixtures = accepted_fixtures()?;
    assert!(fixtures.len() >= 10, "only {} fixtures", fixtures.len());
    for fixture in &fixtures {
        assert_round_trip(fixture)?;
    }
    Ok(())
}

#[test]
fn samples_carry_no_namespace() -> TestResult {
    // Applied with `kubectl apply -n <namespace>`; see the sample headers.
    for sample in samples()? {
        assert_eq!(
            load(&sample)?.metadata.namespace,
            None,
            "{}",
            sample.display()
        );
    }
    Ok(())
}

#[test]
fn minimal_sample_gets_the_documented_defaults() -> TestResult {
    let runtime = load(&repo_root().join("deploy/samples/minimal.yaml"))?;
    let spec = &runtime.spec;
    assert_eq!(spec.replicas, 1);
    assert_eq!(spec.image.pull_policy, PullPolicy::IfNotPresent);
    assert_eq!(spec.service.type_, ServiceType::ClusterIP);
    assert_eq!(spec.service.port, 9000);
    assert_eq!(spec.provider.type_, ProviderType::Ollama);
    assert_eq!(
        spec.image.reference(),
        "ghcr.io/trussiumhq/trussium:v1.22.0"
    );
    assert_eq!(spec.autoscaling, None);
    assert_eq!(spec.network_policy, None);
    Ok(())
}

#[test]
fn full_sample_uses_every_field() -> TestResult {
    let path = repo_root().join("deploy/samples/full.yaml");
    let given: Value = serde_yaml::from_str(&std::fs::read_to_string(&path)?)?;
    let spec = given.get("spec").ok_or("no spec")?;
    let properties = serde_json::to_value(trussium_api::crd::crd())?;
    let properties = properties
        .pointer("/spec/versions/0/schema/openAPIV3Schema/properties/spec/properties")
        .and_then(Value::as_object)
        .ok_or("no spec properties")?;
    let unused: Vec<_> = properties
        .keys()
        .filter(|k| spec.get(k.as_str()).is_none())
        .collect();
    assert!(unused.is_empty(), "full.yaml does not show {unused:?}");
    for section in [
        "/image/pullPolicy",
        "/provider/baseURL",
        "/provider/credentialsSecretRef/key",
        "/runtime/providerRequestTimeoutSeconds",
        "/runtime/streamIdleTimeoutSeconds",
        "/runtime/shutdownDrainTimeoutSeconds",
        "/networkPolicy/ingress/0/namespaceSelector",
        "/networkPolicy/ingress/0/podSelector",
        "/autoscaling/targetCPUUtilizationPercentage",
        "/resources/requests/cpu",
        "/podMetadata/labels",
        "/podMetadata/annotations",
        "/scheduling/nodeSelector",
        "/scheduling/tolerations/0",
        "/scheduling/affinity",
    ] {
        assert!(spec.pointer(section).is_some(), "full.yaml lacks {section}");
    }
    Ok(())
}
