//! The value of every Secret the soak writes, and how to find one anywhere.
//!
//! Every value starts with [`SENTINEL`], twelve bytes: base64 turns each
//! three bytes into four characters, so any base64 of a value (a Secret's
//! `data` in JSON, a Secret object logged whole) starts with the base64 of
//! the sentinel, whatever follows it. Searching for both forms finds a value
//! in plain text and in encoded objects.

use base64::Engine;
use base64::engine::general_purpose::STANDARD;

pub const SENTINEL: &str = "TRUSSIUMSOAK";

/// The `n`th value of a soak with `seed`.
pub fn value(seed: u64, n: u64) -> String {
    format!("{SENTINEL}-{seed}-{n}")
}

/// Whether `text` holds a value, plain or base64-encoded.
pub fn found_in(text: &str) -> bool {
    text.contains(SENTINEL) || text.contains(&STANDARD.encode(SENTINEL))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_values_plain_and_encoded_and_nothing_else() {
        let v = value(42, 7);
        assert!(found_in(&format!("note: {v}")));
        assert_eq!(
            SENTINEL.len() % 3,
            0,
            "the encoded prefix must not depend on what follows"
        );
        for encoded in [STANDARD.encode(&v), STANDARD.encode(value(1, 123456))] {
            assert!(found_in(&format!(
                r#"{{"data":{{"api-key":"{encoded}"}}}}"#
            )));
        }
        assert!(!found_in("api-key: sk-something-else"));
        assert!(!found_in(&STANDARD.encode("something else")));
    }
}
