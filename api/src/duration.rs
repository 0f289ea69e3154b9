//! Durations on command lines, one rule for the operator's flags and the
//! plugin's: numbers with units as Kubernetes spells them (`500ms`, `15s`,
//! `5m`, `1h30m`, `1.5s`), or a bare number of seconds. What a flag allows
//! beyond that (the Lease counts whole seconds) its own check says.

use std::time::Duration;

/// Parses a duration: a sequence of `<number><unit>` with the units `ms`,
/// `s`, `m` and `h` (a number may have a fraction), or a bare whole number
/// of seconds.
pub fn parse(value: &str) -> Result<Duration, String> {
    let bad =
        || format!("invalid duration {value:?}: use a number with a unit, e.g. 90s, 5m, 1h30m");
    if let Ok(seconds) = value.parse::<u64>() {
        return Ok(Duration::from_secs(seconds));
    }
    if value.is_empty() {
        return Err(bad());
    }
    let mut nanos: u128 = 0;
    let mut rest = value;
    while !rest.is_empty() {
        let number_len = rest
            .find(|c: char| !c.is_ascii_digit() && c != '.')
            .ok_or_else(bad)?;
        let (number, after) = rest.split_at(number_len);
        let unit_len = after
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(after.len());
        let (unit, after) = after.split_at(unit_len);
        let unit_nanos: u128 = match unit {
            "ms" => 1_000_000,
            "s" => 1_000_000_000,
            "m" => 60_000_000_000,
            "h" => 3_600_000_000_000,
            _ => return Err(bad()),
        };
        nanos = nanos
            .checked_add(number_nanos(number, unit_nanos).ok_or_else(bad)?)
            .ok_or_else(bad)?;
        rest = after;
    }
    let seconds = u64::try_from(nanos / 1_000_000_000).map_err(|_| bad())?;
    // The remainder is below 10^9, so it fits.
    let subsec = u32::try_from(nanos % 1_000_000_000).map_err(|_| bad())?;
    Ok(Duration::new(seconds, subsec))
}

/// `digits[.digits]` times `unit_nanos`, in whole nanoseconds; `None` when
/// it is not a number or too large.
fn number_nanos(number: &str, unit_nanos: u128) -> Option<u128> {
    let (whole, fraction) = number.split_once('.').unwrap_or((number, ""));
    if (whole.is_empty() && fraction.is_empty()) || fraction.contains('.') {
        return None;
    }
    let digits = |s: &str| -> Option<u128> {
        if s.is_empty() {
            Some(0)
        } else {
            s.parse().ok()
        }
    };
    // Digits beyond nanoseconds say nothing.
    let fraction = &fraction[..fraction.len().min(18)];
    let scale = 10u128.checked_pow(u32::try_from(fraction.len()).ok()?)?;
    let whole = digits(whole)?.checked_mul(unit_nanos)?;
    let part = digits(fraction)?.checked_mul(unit_nanos)? / scale;
    whole.checked_add(part)
}

/// A duration the way people write it: `5m`, `1h30m`, `45s`, `250ms`.
pub fn format(d: Duration) -> String {
    let secs = d.as_secs();
    if secs == 0 {
        return format!("{}ms", d.as_millis());
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    let mut out = String::new();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if m > 0 {
        out.push_str(&format!("{m}m"));
    }
    if s > 0 {
        out.push_str(&format!("{s}s"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(s: &str) -> Duration {
        parse(s).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn units_and_sequences() {
        assert_eq!(ok("90s"), Duration::from_secs(90));
        assert_eq!(ok("15s"), Duration::from_secs(15));
        assert_eq!(ok("5m"), Duration::from_secs(300));
        assert_eq!(ok("2h"), Duration::from_secs(7200));
        assert_eq!(ok("1h30m"), Duration::from_secs(5400));
        assert_eq!(ok("2m30s"), Duration::from_secs(150));
        assert_eq!(ok("1m30s500ms"), Duration::from_millis(90_500));
        assert_eq!(ok("500ms"), Duration::from_millis(500));
        assert_eq!(ok("0s"), Duration::ZERO);
    }

    #[test]
    fn fractions() {
        assert_eq!(ok("1.5s"), Duration::from_millis(1500));
        assert_eq!(ok(".5s"), Duration::from_millis(500));
        assert_eq!(ok("1.5h"), Duration::from_secs(5400));
        assert_eq!(ok("0.001s"), Duration::from_millis(1));
        assert_eq!(ok("1.s"), Duration::from_secs(1));
        assert_eq!(
            ok("0.0000000000000000000001s"),
            Duration::ZERO,
            "digits beyond nanoseconds"
        );
    }

    #[test]
    fn a_bare_number_is_seconds() {
        assert_eq!(ok("42"), Duration::from_secs(42));
        assert_eq!(ok("0"), Duration::ZERO);
    }

    #[test]
    fn refusals_name_the_value() {
        for bad in [
            "", "s", "m", "5x", "s5", "-5s", "-1", "5 m", " 5m", "15s3", "1.2.3s", ".s", "5sm",
            "1d", "5M",
        ] {
            let err = parse(bad)
                .err()
                .unwrap_or_else(|| panic!("{bad:?} accepted"));
            assert!(err.contains(&format!("{bad:?}")), "{err}");
        }
    }

    #[test]
    fn too_large_is_refused_not_a_panic() {
        assert!(parse("99999999999999999999999999999999999999999h").is_err());
        assert!(parse("9999999999999999999h").is_err());
        assert!(parse(&format!("{}s", u64::MAX)).is_ok());
        assert!(parse(&format!("{}m", u64::MAX)).is_err());
    }

    #[test]
    fn formats_as_written() {
        assert_eq!(format(Duration::from_secs(300)), "5m");
        assert_eq!(format(Duration::from_secs(5430)), "1h30m30s");
        assert_eq!(format(Duration::from_secs(45)), "45s");
        assert_eq!(format(Duration::from_millis(250)), "250ms");
        for text in ["5m", "1h30m30s", "45s", "250ms", "2h"] {
            assert_eq!(format(ok(text)), text);
        }
    }
}
