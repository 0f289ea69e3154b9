//! Exit codes, the one table scripts rely on: `--help` and each command's
//! help are generated from it, and every error says which one it is.

/// An exit code of `kubectl trussium`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[repr(u8)]
pub enum Exit {
    Ok = 0,
    Error = 1,
    Usage = 2,
    RolloutFailed = 3,
    TimedOut = 4,
    Refused = 5,
    NoEarlierImage = 6,
    AlreadyDesired = 7,
    BeingDeleted = 8,
    NotInHistory = 9,
    CheckFailed = 10,
    NotReady = 11,
    AlreadyExists = 12,
    Suspended = 13,
}

impl Exit {
    pub fn code(self) -> u8 {
        self as u8
    }
}

/// One row of the table: the code, the commands it is about (none: every
/// command) and what it means for them.
#[derive(Clone, Copy, Debug)]
pub struct Meaning {
    pub exit: Exit,
    pub commands: &'static [&'static str],
    pub text: &'static str,
}

/// The commands with `--wait`.
const WAITING: &[&str] = &["upgrade", "rollback", "restart", "install"];
/// The commands with `--wait` that may time out: also `create`, whose first
/// rollout has no failure of its own to report.
const WAITING_OR_CREATE: &[&str] = &["upgrade", "rollback", "restart", "install", "create"];

/// Every exit code, in order.
pub const TABLE: [Meaning; 14] = [
    Meaning {
        exit: Exit::Ok,
        commands: &[],
        text: "success",
    },
    Meaning {
        exit: Exit::Error,
        commands: &[],
        text: "error: the cluster could not be reached, the CRD is not installed, the \
               runtime was not found, the request was forbidden, …",
    },
    Meaning {
        exit: Exit::Usage,
        commands: &[],
        text: "invalid command line (bad flag value, invalid tag or digest, …)",
    },
    Meaning {
        exit: Exit::RolloutFailed,
        commands: WAITING,
        text: "with --wait, the rollout failed: the operator reported UpgradeFailed \
               (install: the operator's Deployment passed its progress deadline)",
    },
    Meaning {
        exit: Exit::TimedOut,
        commands: WAITING_OR_CREATE,
        text: "with --wait, --timeout elapsed before the rollout completed",
    },
    Meaning {
        exit: Exit::Refused,
        commands: &["scale", "uninstall"],
        text: "refused, and --force would do it (scale: autoscaling owns the replica \
               count; uninstall: runtimes exist)",
    },
    Meaning {
        exit: Exit::NoEarlierImage,
        commands: &["rollback"],
        text: "refused, there is no earlier image to go back to (or none has rolled \
               out completely yet)",
    },
    Meaning {
        exit: Exit::AlreadyDesired,
        commands: &["rollback"],
        text: "refused, that image is already the desired one",
    },
    Meaning {
        exit: Exit::BeingDeleted,
        commands: &["rollback", "scale", "upgrade", "restart", "suspend"],
        text: "refused, the runtime is being deleted",
    },
    Meaning {
        exit: Exit::NotInHistory,
        commands: &["rollback"],
        text: "refused, the runtime never ran that image, or has no such revision \
               (see history), or its status names a last successful image that its \
               history does not show",
    },
    Meaning {
        exit: Exit::CheckFailed,
        commands: &["check"],
        text: "at least one check failed (each ✗ says what to do next)",
    },
    Meaning {
        exit: Exit::NotReady,
        commands: &["diagnose"],
        text: "the runtime is not Ready (with -A or no NAME: at least one is); the first line \
               says why",
    },
    Meaning {
        exit: Exit::AlreadyExists,
        commands: &["create"],
        text: "refused, a runtime of that name exists in the namespace (it is left as it is)",
    },
    Meaning {
        exit: Exit::Suspended,
        commands: &["upgrade", "scale", "rollback", "restart"],
        text: "refused, the runtime is suspended: resume it, or --force records the change \
               in the spec for when it is resumed",
    },
];

/// The "Exit codes:" section of a help text: every code (each naming its
/// commands) for `None`, else the codes of every command and those of
/// `command`.
pub fn help(command: Option<&str>) -> String {
    let mut text = String::from("Exit codes:");
    for row in &TABLE {
        let meaning = match command {
            _ if row.commands.is_empty() => row.text.to_string(),
            None => format!("{}: {}", row.commands.join(", "), row.text),
            Some(c) if row.commands.contains(&c) => row.text.to_string(),
            Some(_) => continue,
        };
        text.push_str(&format!("\n  {:>2}  ", row.exit.code()));
        text.push_str(&wrap(&meaning, 72, 6));
    }
    text
}

/// Wraps `text` at `width` columns, continuation lines indented by `indent`.
fn wrap(text: &str, width: usize, indent: usize) -> String {
    let mut out = String::new();
    let mut line = 0;
    for word in text.split_whitespace() {
        let len = word.chars().count();
        if line > 0 && line + 1 + len > width {
            out.push('\n');
            out.push_str(&" ".repeat(indent));
            line = 0;
        } else if line > 0 {
            out.push(' ');
            line += 1;
        }
        out.push_str(word);
        line += len;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_each_code_once_in_order() {
        let codes: Vec<u8> = TABLE.iter().map(|row| row.exit.code()).collect();
        let expected: Vec<u8> = (0..TABLE.len() as u8).collect();
        assert_eq!(codes, expected);
    }

    #[test]
    fn help_of_one_command_has_its_codes_and_the_general_ones() {
        let rollback = help(Some("rollback"));
        for code in [0, 1, 2, 3, 4, 6, 7, 8, 9] {
            assert!(
                rollback.contains(&format!("\n  {code:>2}  ")),
                "{code}: {rollback}"
            );
        }
        assert!(!rollback.contains("\n   5  "), "{rollback}");
        assert!(!rollback.contains("\n  10  "), "{rollback}");
        let all = help(None);
        assert!(all.contains("\n   5  scale, uninstall: refused"), "{all}");
        assert!(
            all.contains("\n  10  check: at least one check failed"),
            "{all}"
        );
        assert!(
            all.contains(
                "\n   8  rollback, scale, upgrade, restart, suspend: refused, the runtime is"
            ),
            "{all}"
        );
        assert!(
            all.contains(
                "\n  13  upgrade, scale, rollback, restart: refused, the runtime is suspended"
            ),
            "{all}"
        );
        assert!(rollback.contains("\n   8  refused, the runtime is being deleted"));
    }

    #[test]
    fn long_meanings_wrap_under_their_text() {
        let all = help(None);
        assert!(all.lines().all(|l| l.chars().count() <= 80), "{all}");
        assert!(
            all.contains("\n   1  error: the cluster could not be reached, the CRD is not installed, the\n      runtime"),
            "{all}"
        );
    }
}
