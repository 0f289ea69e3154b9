//! What the manual may name, read from the code: the programs and their
//! command lines (clap), the condition types and reasons (the API crate) and
//! the Event reasons (the operator).

use std::collections::BTreeSet;

use clap::Command;

/// The plugin's clap definition (the plugin's library keeps it).
pub fn plugin_command() -> Command {
    kubectl_trussium::cli::command()
}

/// The operator's clap definition (operator/src/cli.rs).
pub fn operator_command() -> Command {
    trussium_operator::cli::command()
}

/// A program whose command lines the manual shows.
pub struct Program {
    /// How pages write it: `kubectl trussium`, `kubectl-trussium`.
    pub spellings: Vec<&'static str>,
    /// Its clap definition, built (globals propagated to every command).
    pub command: Command,
}

/// Everything the manual may name.
pub struct Vocabulary {
    pub programs: Vec<Program>,
    pub condition_types: BTreeSet<String>,
    /// True, False, Unknown.
    pub condition_statuses: BTreeSet<String>,
    pub condition_reasons: BTreeSet<String>,
    pub event_reasons: BTreeSet<String>,
}

impl Vocabulary {
    /// The vocabulary of this repository's code.
    pub fn of_the_code() -> Vocabulary {
        let strings = |names: &[&str]| names.iter().map(|n| n.to_string()).collect();
        Vocabulary {
            programs: vec![
                Program::new(
                    vec!["kubectl trussium", "kubectl-trussium"],
                    plugin_command(),
                ),
                Program::new(vec!["trussium-operator"], operator_command()),
            ],
            condition_types: strings(&trussium_api::condition_type::WRITTEN),
            condition_statuses: trussium_api::ConditionStatus::ALL
                .iter()
                .map(|s| s.as_str().to_string())
                .collect(),
            condition_reasons: strings(trussium_api::reason::ALL),
            event_reasons: trussium_operator::pure::events::Reason::ALL
                .iter()
                .map(|r| r.as_str().to_string())
                .collect(),
        }
    }

    /// Every long flag (`--name`) and short flag (`-n`) of any program.
    pub fn all_flags(&self) -> BTreeSet<String> {
        let mut flags = BTreeSet::new();
        for program in &self.programs {
            collect_flags(&program.command, &mut flags);
        }
        flags
    }
}

impl Program {
    pub fn new(spellings: Vec<&'static str>, mut command: Command) -> Program {
        command.build();
        Program { spellings, command }
    }
}

fn collect_flags(command: &Command, flags: &mut BTreeSet<String>) {
    for arg in command.get_arguments() {
        if let Some(long) = arg.get_long() {
            flags.insert(format!("--{long}"));
        }
        if let Some(short) = arg.get_short() {
            flags.insert(format!("-{short}"));
        }
    }
    for sub in command.get_subcommands() {
        collect_flags(sub, flags);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_names_from_the_code() {
        let v = Vocabulary::of_the_code();
        assert!(v.condition_types.contains("Stalled"));
        assert!(v.condition_reasons.contains("SecretNotFound"));
        assert!(v.event_reasons.contains("RuntimeUpgradeFailed"));
        let flags = v.all_flags();
        for flag in [
            "--namespace",
            "-n",
            "--watch",
            "--leader-elect",
            "--metrics-bind-address",
        ] {
            assert!(flags.contains(flag), "{flag} in {flags:?}");
        }
    }
}
