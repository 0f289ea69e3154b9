//! The syntax Kubernetes requires of names, label keys and values, Secret
//! keys and URLs, checked in Rust (the API server checks the same with the
//! CEL rules of [`super::rules`]).

/// A DNS-1035 label: at most 63 lowercase letters, digits and '-', starting
/// with a letter and ending with a letter or digit (a Service name).
pub fn is_dns1035_label(s: &str) -> bool {
    s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && label_body(s, |c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
        })
}

/// A DNS-1123 label: like [`is_dns1035_label`], but it may start with a digit
/// (a namespace name).
pub fn is_dns1123_label(s: &str) -> bool {
    s.len() <= 63
        && !s.is_empty()
        && label_body(s, |c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-'
        })
}

/// A DNS-1123 subdomain: at most 253 characters, dot-separated DNS-1123
/// labels (a Secret name).
pub fn is_dns1123_subdomain(s: &str) -> bool {
    s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

/// Not empty; every character allowed; first and last alphanumeric.
fn label_body(s: &str, allowed: impl Fn(char) -> bool) -> bool {
    let alnum = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
    alnum(s.chars().next()) && alnum(s.chars().last()) && s.chars().all(allowed)
}

/// A label value: empty, or at most 63 letters, digits, '-', '_' and '.',
/// starting and ending with a letter or digit.
pub fn is_label_value(s: &str) -> bool {
    s.is_empty() || (s.len() <= 63 && label_body(s, name_char))
}

fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.')
}

/// A qualified name (label and annotation keys, taint keys, topology keys):
/// an optional DNS-subdomain prefix and '/', then a name of at most 63
/// letters, digits, '-', '_' and '.', starting and ending with a letter or
/// digit.
pub fn is_qualified_name(s: &str) -> bool {
    let (prefix, name) = match s.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, s),
    };
    prefix.is_none_or(is_dns1123_subdomain) && name.len() <= 63 && label_body(name, name_char)
}

/// A Secret (or ConfigMap) key: at most 253 letters, digits, '-', '_' and
/// '.', and not `.`, `..` or starting with `..`.
pub fn is_secret_key(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.chars().all(name_char) && s != "." && !s.starts_with("..")
}

/// `rules::REPOSITORY_PATTERN`: an optional registry `host[:port]/`, then
/// lowercase path components (`[a-z0-9]+([._-]+[a-z0-9]+)*`) joined by '/'.
pub fn is_repository(repository: &str) -> bool {
    fn alnum_ends(s: &str, inner: impl Fn(char) -> bool) -> bool {
        let ends = |c: Option<char>| c.is_some_and(|c| c.is_ascii_alphanumeric());
        ends(s.chars().next()) && ends(s.chars().last()) && s.chars().all(inner)
    }
    fn path_component(c: &str) -> bool {
        alnum_ends(c, |ch| {
            ch.is_ascii_lowercase() || ch.is_ascii_digit() || matches!(ch, '.' | '_' | '-')
        }) && !c.chars().any(|ch| ch.is_ascii_uppercase())
    }
    fn host(h: &str) -> bool {
        let (name, port) = match h.split_once(':') {
            Some((name, port)) => (name, Some(port)),
            None => (h, None),
        };
        alnum_ends(name, |ch| {
            ch.is_ascii_alphanumeric() || matches!(ch, '.' | '-')
        }) && port.is_none_or(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    }
    let components: Vec<&str> = repository.split('/').collect();
    components.iter().all(|c| path_component(c))
        || (components.len() >= 2
            && host(components[0])
            && components[1..].iter().all(|c| path_component(c)))
}

/// `^https?://[^\s]+$` (RE2's `\s`: tab, newline, form feed, carriage
/// return, space).
pub fn is_http_url(url: &str) -> bool {
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    rest.is_some_and(|rest| {
        !rest.is_empty()
            && !rest
                .chars()
                .any(|c| matches!(c, '\t' | '\n' | '\x0c' | '\r' | ' '))
    })
}

/// Whether `s` holds a control character (C0, DEL or C1: Unicode `Cc`, what
/// the CEL rules match with `\p{Cc}`).
pub fn has_control(s: &str) -> bool {
    s.chars().any(char::is_control)
}

/// Whether the URL carries user information (`user:password@host`): an '@'
/// in its authority, between `//` and the first '/', '?' or '#'.
pub fn has_user_info(url: &str) -> bool {
    user_info_end(url).is_some()
}

/// The URL without its user information, as it may be shown or stored.
pub fn without_user_info(url: &str) -> String {
    match (url.find("//"), user_info_end(url)) {
        (Some(start), Some(end)) => format!("{}{}", &url[..start + 2], &url[end + 1..]),
        _ => url.to_string(),
    }
}

/// The byte index of the '@' that ends the user information, if any: the
/// CEL rule's `^[^/?#]*//[^/?#]*@`.
fn user_info_end(url: &str) -> Option<usize> {
    let slashes = url.find("//")?;
    if url[..slashes].contains(['/', '?', '#']) {
        return None;
    }
    let start = slashes + 2;
    let authority = url[start..]
        .find(['/', '?', '#'])
        .map_or(&url[start..], |end| &url[start..start + end]);
    authority.rfind('@').map(|at| start + at)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dns_names() {
        for ok in ["a", "abc", "a-b", "a1", &"a".repeat(63)] {
            assert!(is_dns1035_label(ok), "{ok}");
            assert!(is_dns1123_label(ok), "{ok}");
        }
        for bad in ["", "1a", "-a", "a-", "a.b", "A", "a_b", &"a".repeat(64)] {
            assert!(!is_dns1035_label(bad), "{bad}");
        }
        assert!(is_dns1123_label("1a"));
        assert!(!is_dns1123_label("a.b"));
        for ok in ["a", "a.b", "1.2-3.c", &format!("{}.b", "a".repeat(63))] {
            assert!(is_dns1123_subdomain(ok), "{ok}");
        }
        for bad in [
            "",
            "a..b",
            ".a",
            "a.",
            "A",
            "x; curl",
            "a/b",
            &"a".repeat(254),
        ] {
            assert!(!is_dns1123_subdomain(bad), "{bad}");
        }
    }

    #[test]
    fn label_values_and_keys() {
        for ok in ["", "a", "a.b_c-d", "A1", &"a".repeat(63)] {
            assert!(is_label_value(ok), "{ok}");
        }
        for bad in ["-a", "a-", "a b", "a/b", &"a".repeat(64)] {
            assert!(!is_label_value(bad), "{bad}");
        }
        for ok in ["a", "example.com/a", "kubernetes.io/hostname", "A_b.c"] {
            assert!(is_qualified_name(ok), "{ok}");
        }
        for bad in [
            "",
            "/a",
            "a/",
            "Example.com/a",
            "a/b/c",
            "-a",
            "a b",
            &"a".repeat(64),
        ] {
            assert!(!is_qualified_name(bad), "{bad}");
        }
    }

    #[test]
    fn secret_keys() {
        for ok in ["api-key", "a.b_c", ".env", "A1", "a..b"] {
            assert!(is_secret_key(ok), "{ok}");
        }
        for bad in ["", ".", "..", "..a", "a/b", "a b", "é", &"a".repeat(254)] {
            assert!(!is_secret_key(bad), "{bad}");
        }
    }

    #[test]
    fn control_characters() {
        assert!(!has_control("llama3.2:8b-instruct é"));
        for bad in [
            "a\nb",
            "a\tb",
            "\u{1b}[31m",
            "\u{7}",
            "\0",
            "\u{7f}",
            "\u{9b}",
        ] {
            assert!(has_control(bad), "{bad:?}");
        }
    }

    #[test]
    fn user_information() {
        for (url, stripped) in [
            (
                "https://alice:sk@api.example.com/v1",
                "https://api.example.com/v1",
            ),
            ("http://alice@h:80", "http://h:80"),
            ("https://a:b@c@h/p?x=@#@", "https://h/p?x=@#@"),
        ] {
            assert!(has_user_info(url), "{url}");
            assert_eq!(without_user_info(url), stripped);
        }
        for url in [
            "https://api.example.com/v1",
            "https://h/p@q",
            "https://h/?u=a@b",
            "https://h#@",
            "not a url",
        ] {
            assert!(!has_user_info(url), "{url}");
            assert_eq!(without_user_info(url), url);
        }
    }
}
