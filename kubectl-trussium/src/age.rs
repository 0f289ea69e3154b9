//! Ages, the way kubectl prints them (`45s`, `5m30s`, `3h`, `2d4h`).

use k8s_openapi::jiff::Timestamp;

/// Time elapsed from `then` to `now`, as kubectl's HumanDuration prints it.
/// A time in the future (clock skew) reads `0s`.
pub fn since(then: &Timestamp, now: Timestamp) -> String {
    human(now.as_second() - then.as_second())
}

/// kubectl's HumanDuration for a number of seconds.
pub fn human(seconds: i64) -> String {
    if seconds < 0 {
        return "0s".to_string();
    }
    if seconds < 120 {
        return format!("{seconds}s");
    }
    let minutes = seconds / 60;
    if minutes < 10 {
        return match seconds % 60 {
            0 => format!("{minutes}m"),
            s => format!("{minutes}m{s}s"),
        };
    }
    if minutes < 180 {
        return format!("{minutes}m");
    }
    let hours = minutes / 60;
    if hours < 8 {
        return match minutes % 60 {
            0 => format!("{hours}h"),
            m => format!("{hours}h{m}m"),
        };
    }
    if hours < 48 {
        return format!("{hours}h");
    }
    if hours < 24 * 8 {
        return match hours % 24 {
            0 => format!("{}d", hours / 24),
            h => format!("{}d{h}h", hours / 24),
        };
    }
    if hours < 24 * 365 * 2 {
        return format!("{}d", hours / 24);
    }
    if hours < 24 * 365 * 8 {
        return match (hours / 24) % 365 {
            0 => format!("{}y", hours / 24 / 365),
            d => format!("{}y{d}d", hours / 24 / 365),
        };
    }
    format!("{}y", hours / 24 / 365)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn like_kubectl() {
        let cases = [
            (-5, "0s"),
            (0, "0s"),
            (59, "59s"),
            (119, "119s"),
            (120, "2m"),
            (330, "5m30s"),
            (599, "9m59s"),
            (600, "10m"),
            (179 * 60, "179m"),
            (3 * 3600, "3h"),
            (3 * 3600 + 25 * 60, "3h25m"),
            (8 * 3600, "8h"),
            (47 * 3600, "47h"),
            (48 * 3600, "2d"),
            (52 * 3600, "2d4h"),
            (10 * 86400, "10d"),
            (800 * 86400, "2y70d"),
            (3650 * 86400, "10y"),
        ];
        for (secs, want) in cases {
            assert_eq!(human(secs), want, "{secs}s");
        }
    }

    #[test]
    fn since_timestamps() {
        let then = Timestamp::from_second(1_000).unwrap_or_else(|e| panic!("{e}"));
        let now = Timestamp::from_second(1_330).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(since(&then, now), "5m30s");
        assert_eq!(since(&now, then), "0s");
    }
}
