//! What a runtime waiting for a turn to roll (see [`crate::pure::turns`])
//! reports as `Progressing`.
//!
//! The message names no queue position: it would change with every turn
//! given and cost a status write per waiting runtime each time.

use trussium_api::reason;

use super::conditions::Verdict;
use crate::pure::turns::Waiting;

/// `Progressing` while the Deployment waits for its turn.
pub fn progressing(waiting: &Waiting) -> Verdict {
    let limit = match waiting.max {
        1 => "one such rollout runs at a time".to_string(),
        max => format!("at most {max} such rollouts run at once"),
    };
    let mut message = format!(
        "Waiting for a turn to roll out the pod template of the operator's new version: {limit} (--max-concurrent-rollouts); the current pods keep serving"
    );
    if !waiting.failed.is_empty() {
        let names: Vec<String> = waiting
            .failed
            .iter()
            .map(|(ns, name)| format!("{ns}/{name}"))
            .collect();
        message.push_str(&format!(
            ". Held up by rollouts that did not become available: {} (a change to their spec or a restart frees their turn)",
            names.join(", ")
        ));
    }
    Verdict::yes(reason::WAITING_FOR_TURN, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting(failed: Vec<(String, String)>) -> Waiting {
        Waiting {
            ahead: 3,
            rolling: 2,
            failed,
            max: 2,
        }
    }

    #[test]
    fn progressing_true_with_the_limit_and_no_position() {
        let v = progressing(&waiting(vec![]));
        assert!(v.status);
        assert_eq!(v.reason, "WaitingForTurn");
        assert!(
            v.message.contains("at most 2 such rollouts"),
            "{}",
            v.message
        );
        assert!(!v.message.contains('3'), "no position: {}", v.message);
        assert!(!v.message.contains("Held up"), "{}", v.message);
    }

    #[test]
    fn failed_rollouts_holding_turns_are_named() {
        let v = progressing(&waiting(vec![("team-a".into(), "chat".into())]));
        assert!(
            v.message.contains("did not become available: team-a/chat"),
            "{}",
            v.message
        );
    }
}
