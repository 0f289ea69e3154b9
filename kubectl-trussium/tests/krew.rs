//! The krew manifest template (krew/trussium.yaml) describes every command
//! the plugin has, in a short description krew accepts.

use std::path::PathBuf;

#[test]
fn the_krew_manifest_lists_every_command() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../krew/trussium.yaml");
    let manifest = std::fs::read_to_string(&path).unwrap_or_default();
    let description = manifest
        .split_once("  description: |")
        .and_then(|(_, rest)| rest.split_once("  caveats: |"))
        .map(|(description, _)| description)
        .unwrap_or_default();
    let command = kubectl_trussium::cli::command();
    for sub in command.get_subcommands().filter(|s| !s.is_hide_set()) {
        let name = sub.get_name();
        if name == "help" {
            continue;
        }
        assert!(
            description.contains(&format!("\n      {name} ")),
            "krew/trussium.yaml does not describe `{name}`"
        );
    }
    let short = manifest
        .lines()
        .find_map(|l| l.trim().strip_prefix("shortDescription: "))
        .unwrap_or_default();
    assert!(
        !short.is_empty() && short.chars().count() <= 50,
        "krew's short description is at most 50 characters: {short:?}"
    );
}
