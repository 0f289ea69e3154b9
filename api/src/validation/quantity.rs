//! Resource quantities (`500m`, `2`, `1.5Gi`, `1e3`), parsed as the API
//! server's `resource.ParseQuantity` (and CEL's `isQuantity`) accepts them,
//! to a number that compares like theirs.

/// The value of a quantity, or `None` when it is not one.
///
/// One correctly rounded decimal parse and an exact power-of-two scaling, so
/// two spellings of the same amount (`1Gi`, `1073741824`; `500m`, `0.5`)
/// compare equal; amounts closer than one part in 2^53 may compare equal.
pub fn parse(s: &str) -> Option<f64> {
    let (negative, rest) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let number_len = rest
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(rest.len());
    let (number, suffix) = rest.split_at(number_len);
    let (int, frac) = number.split_once('.').unwrap_or((number, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if int.len() + frac.len() == 0 || !digits(int) || !digits(frac) {
        return None;
    }
    let (exponent, binary) = suffix_scale(suffix)?;
    let int = if int.is_empty() { "0" } else { int };
    let decimal: f64 = format!("{int}.{frac}0e{exponent}").parse().ok()?;
    let value = decimal * 2f64.powi(binary);
    Some(if negative { -value } else { value })
}

/// The power of ten and the power of two a suffix stands for.
fn suffix_scale(suffix: &str) -> Option<(i64, i32)> {
    let decimal = |e| Some((e, 0));
    match suffix {
        "" => decimal(0),
        "n" => decimal(-9),
        "u" => decimal(-6),
        "m" => decimal(-3),
        "k" => decimal(3),
        "M" => decimal(6),
        "G" => decimal(9),
        "T" => decimal(12),
        "P" => decimal(15),
        "E" => decimal(18),
        "Ki" => Some((0, 10)),
        "Mi" => Some((0, 20)),
        "Gi" => Some((0, 30)),
        "Ti" => Some((0, 40)),
        "Pi" => Some((0, 50)),
        "Ei" => Some((0, 60)),
        _ => {
            let exponent = suffix.strip_prefix(['e', 'E'])?;
            let unsigned = exponent.strip_prefix(['+', '-']).unwrap_or(exponent);
            if unsigned.is_empty() || !unsigned.bytes().all(|b| b.is_ascii_digit()) {
                return None;
            }
            decimal(exponent.parse().ok()?)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse;

    #[test]
    fn quantities() {
        for (s, v) in [
            ("0", 0.0),
            ("1", 1.0),
            ("+2", 2.0),
            ("-1", -1.0),
            ("500m", 0.5),
            ("0.5", 0.5),
            (".5", 0.5),
            ("5.", 5.0),
            ("1k", 1000.0),
            ("1Ki", 1024.0),
            ("1.5Gi", 1610612736.0),
            ("1e3", 1000.0),
            ("1E3", 1000.0),
            ("1e-3", 0.001),
            ("2E", 2e18),
            ("100n", 1e-7),
            ("3u", 3e-6),
            ("256Mi", 268435456.0),
        ] {
            assert_eq!(parse(s), Some(v), "{s}");
        }
        assert_eq!(parse("1Gi"), parse("1073741824"));
        assert_eq!(parse("1000m"), parse("1"));
        assert!(parse("1001m") > parse("1"));
    }

    #[test]
    fn not_quantities() {
        for s in [
            "", "-", "+", ".", "abc", "1.2.3", "1 Gi", " 1", "1gi", "1KB", "1e", "1e+", "1ee3",
            "1Ki2", "1..", "--1", "1m ", "0x10", "1e1.5", "Mi",
        ] {
            assert_eq!(parse(s), None, "{s:?}");
        }
    }
}
