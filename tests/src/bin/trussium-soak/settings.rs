//! The soak's settings, from the environment (`make soak DURATION=30m
//! SOAK_SEED=...`), checked before anything is created.

use std::time::Duration;

use trussium_api::duration;

/// How long the churn runs (`make soak DURATION=` sets it).
pub const DURATION_ENV: &str = "SOAK_DURATION";
/// The seed to replay; a fresh one (printed) when unset.
pub const SEED_ENV: &str = "SOAK_SEED";
pub const DEFAULT_DURATION: &str = "30m";
/// The shortest soak that sees every fault and a checkpoint.
const SHORTEST: Duration = Duration::from_secs(60);
/// The pace of the churn: about one operation per step.
pub const STEP: Duration = Duration::from_secs(1);

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub duration: Duration,
    pub seed: u64,
}

impl Settings {
    /// Steps of churn in the duration.
    pub fn steps(&self) -> u64 {
        self.duration.as_secs() / STEP.as_secs()
    }
}

/// The settings from `duration` and `seed` as given (unset: the defaults;
/// `fresh` is the seed to use when none is given). One line when wrong.
pub fn parse(duration: Option<&str>, seed: Option<&str>, fresh: u64) -> Result<Settings, String> {
    let given = duration
        .filter(|d| !d.is_empty())
        .unwrap_or(DEFAULT_DURATION);
    let duration = duration::parse(given).map_err(|e| format!("DURATION: {e}"))?;
    if duration < SHORTEST {
        return Err(format!(
            "DURATION: {given} is shorter than the shortest soak, {}s",
            SHORTEST.as_secs()
        ));
    }
    let seed = match seed.filter(|s| !s.is_empty()) {
        None => fresh,
        Some(s) => s.parse().map_err(|_| {
            format!(
                "SOAK_SEED: '{s}' is not a number (use a seed a soak printed, e.g. SOAK_SEED=42)"
            )
        })?,
    };
    Ok(Settings { duration, seed })
}

/// A seed nobody chose: the clock's nanoseconds.
pub fn fresh_seed() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_and_seeds() {
        assert_eq!(
            parse(Some("3m"), Some("7"), 1),
            Ok(Settings {
                duration: Duration::from_secs(180),
                seed: 7
            })
        );
        assert_eq!(
            parse(None, None, 9).map(|s| (s.duration.as_secs(), s.seed)),
            Ok((1800, 9))
        );
        assert_eq!(
            parse(Some("1h30m"), Some(""), 9).map(|s| s.steps()),
            Ok(5400)
        );
    }

    #[test]
    fn bad_input_is_one_line_naming_the_setting() {
        for (duration, seed, expected) in [
            (
                Some("soon"),
                None,
                "DURATION: invalid duration \"soon\": use a number with a unit",
            ),
            (Some("30"), None, "shorter than the shortest soak"),
            (Some("3m"), Some("x42"), "SOAK_SEED: 'x42' is not a number"),
            (Some("3m"), Some("-1"), "SOAK_SEED: '-1' is not a number"),
        ] {
            let message = parse(duration, seed, 0).err().unwrap_or_default();
            assert!(message.contains(expected), "{message}");
            assert_eq!(message.lines().count(), 1, "{message}");
        }
    }
}
