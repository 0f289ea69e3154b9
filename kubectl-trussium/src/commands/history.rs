//! `kubectl trussium history NAME [-o json|yaml]`: the images the runtime has
//! run, newest first (see [`crate::revisions`]).

use clap::Args;
use k8s_openapi::jiff::Timestamp;
use trussium_api::image::version_of;

use crate::age;
use crate::cli::RuntimeName;
use crate::client::Target;
use crate::error::Result;
use crate::output::{self, Health, OutputFormat, Palette};
use crate::revisions::{self, Revision, Rollout};
use crate::table;
use crate::terminal::safe;

#[derive(Args, Debug)]
pub struct HistoryArgs {
    /// The runtime whose history to show
    #[arg(value_name = "NAME")]
    pub name: RuntimeName,

    /// Print machine-readable output instead of the table
    #[arg(short = 'o', long, value_enum, value_name = "FORMAT")]
    pub output: Option<OutputFormat>,
}

pub const HELP: &str = "\
One line per revision of the runtime's Deployment (its ReplicaSets, as
`kubectl rollout history` reads them): the image, when that ReplicaSet was
created, and where its rollout stands. Kubernetes keeps no completion time
for earlier rollouts; the current one's is the Deployment's.

Examples:
  kubectl trussium history private-ai
  kubectl trussium history private-ai -o json";

pub async fn run(target: &Target, args: &HistoryArgs, palette: Palette) -> Result<()> {
    let rt = target.get_runtime(&args.name).await?;
    let revisions = revisions::read(target, &rt).await?;
    if let Some(format) = args.output {
        return output::print(&output::render_machine(
            &serde_json::json!({ "revisions": revisions }),
            format,
        )?);
    }
    if revisions.is_empty() {
        eprintln!(
            "No rollouts of {} in namespace {} yet: the operator has not created its Deployment.",
            args.name, target.namespace
        );
        return Ok(());
    }
    output::print(&render(&revisions, Timestamp::now(), palette))
}

/// The table: revision, image, when its ReplicaSet was created, and its
/// rollout.
pub fn render(revisions: &[Revision], now: Timestamp, palette: Palette) -> String {
    let shared = one_repository(revisions);
    let mut t = table::new(&["REVISION", "IMAGE", "CREATED", "ROLLOUT"], palette);
    for revision in revisions {
        let (health, text) = describe(revision, now);
        t.add_row(vec![
            revision.revision.to_string(),
            safe(&match shared {
                Some(_) => version_of(&revision.image),
                None => revision.image.clone(),
            }),
            revision
                .started
                .map_or("-".to_string(), |t| format!("{} ago", age::since(&t, now))),
            palette.health(&text, health),
        ]);
    }
    let mut text = table::render(&t, 0);
    if let Some(repository) = shared {
        text.push_str(&palette.dim(&format!("Images of {}\n", safe(&repository))));
    }
    text
}

fn describe(revision: &Revision, now: Timestamp) -> (Health, String) {
    let last = if revision.last_successful {
        ", last successful"
    } else {
        ""
    };
    match &revision.rollout {
        Rollout::Complete { completed } => (
            Health::Good,
            match completed {
                Some(at) => format!("current, completed {} ago", age::since(at, now)),
                None => "current, completed".to_string(),
            },
        ),
        Rollout::InProgress => (Health::Warn, "current, rolling out".to_string()),
        Rollout::Failed { message } if message.is_empty() => {
            (Health::Bad, "current, failed".to_string())
        }
        Rollout::Failed { message } => (Health::Bad, format!("current, failed: {}", safe(message))),
        Rollout::Superseded => (Health::Neutral, format!("earlier{last}")),
    }
}

/// The repository every revision's image shares, when they all share one
/// (then the IMAGE column shows versions only).
fn one_repository(revisions: &[Revision]) -> Option<String> {
    let repository = |image: &str| {
        image
            .strip_suffix(&format!(":{}", version_of(image)))
            .or_else(|| image.split_once('@').map(|(r, _)| r))
            .unwrap_or(image)
            .to_string()
    };
    let first = repository(&revisions.first()?.image);
    revisions
        .iter()
        .all(|r| repository(&r.image) == first)
        .then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixtures::at;

    fn revision(n: i64, tag: &str, started: Option<i64>, rollout: Rollout) -> Revision {
        Revision {
            revision: n,
            image: format!("ghcr.io/trussiumhq/trussium:{tag}"),
            replica_set: format!("rt-{n}"),
            started: started.map(at),
            rollout,
            last_successful: false,
        }
    }

    #[test]
    fn newest_first_with_the_current_rollout() {
        let mut earlier = revision(1, "v1", Some(-3600), Rollout::Superseded);
        earlier.last_successful = true;
        let text = render(
            &[
                revision(
                    3,
                    "v3",
                    Some(-300),
                    Rollout::Failed {
                        message: "deadline exceeded".into(),
                    },
                ),
                revision(2, "v2", None, Rollout::Superseded),
                earlier,
            ],
            at(0),
            Palette::PLAIN,
        );
        assert_eq!(
            text,
            "REVISION   IMAGE   CREATED   ROLLOUT\n\
             3          v3      5m ago    current, failed: deadline exceeded\n\
             2          v2      -         earlier\n\
             1          v1      60m ago   earlier, last successful\n\
             Images of ghcr.io/trussiumhq/trussium\n"
        );
        let done = render(
            &[revision(
                1,
                "v1",
                Some(-90),
                Rollout::Complete {
                    completed: Some(at(-30)),
                },
            )],
            at(0),
            Palette::PLAIN,
        );
        assert!(done.contains("current, completed 30s ago"), "{done}");
    }

    #[test]
    fn mixed_repositories_show_whole_references() {
        let mut other = revision(1, "v1", None, Rollout::Superseded);
        other.image = "registry.example.com/mirror@sha256:0123".into();
        let text = render(
            &[revision(2, "v2", None, Rollout::InProgress), other],
            at(0),
            Palette::PLAIN,
        );
        assert!(text.contains("ghcr.io/trussiumhq/trussium:v2"), "{text}");
        assert!(
            text.contains("registry.example.com/mirror@sha256:0123"),
            "{text}"
        );
        assert!(!text.contains("Images of"), "{text}");
    }
}
