//! The Kubernetes versions Trussium supports, read from
//! `kubernetes-versions.txt` at the repository's root: the one place that
//! states them (the test cluster's scripts and the chart follow the same
//! file). The operator logs a warning against an API server outside the
//! range, `kubectl trussium check` shows the server's version against it.

use std::fmt;

/// The file, one `<minor> <patch>` line per supported minor, oldest first.
const VERSIONS: &str = include_str!("../../kubernetes-versions.txt");

/// A Kubernetes minor version, such as 1.34.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Minor {
    pub major: u32,
    pub minor: u32,
}

impl fmt::Display for Minor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl Minor {
    /// `"1.34"`.
    fn parse(text: &str) -> Option<Minor> {
        let (major, minor) = text.split_once('.')?;
        Some(Minor {
            major: major.parse().ok()?,
            minor: minor.parse().ok()?,
        })
    }

    /// The version an API server reports (`/version`): `major` and `minor`
    /// as strings; providers append to the minor (GKE and EKS say `"34+"`).
    /// `None` when either holds no number.
    pub fn from_server(major: &str, minor: &str) -> Option<Minor> {
        fn leading_number(text: &str) -> Option<u32> {
            let digits: String = text.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        }
        Some(Minor {
            major: leading_number(major)?,
            minor: leading_number(minor)?,
        })
    }
}

/// The supported range, both ends included.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SupportedRange {
    pub oldest: Minor,
    pub newest: Minor,
}

impl SupportedRange {
    /// Where `version` stands against the range, for a check or a log line:
    /// `None` inside it.
    pub fn outside(&self, version: Minor) -> Option<Outside> {
        if version < self.oldest {
            Some(Outside::Older)
        } else if version > self.newest {
            Some(Outside::Newer)
        } else {
            None
        }
    }
}

impl fmt::Display for SupportedRange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} to {}", self.oldest, self.newest)
    }
}

/// A version outside the supported range, on one side of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outside {
    /// Older than the oldest supported: features the operator relies on may
    /// be missing.
    Older,
    /// Newer than the newest supported: not tested yet.
    Newer,
}

/// The supported minors, oldest first, each with the patch release the test
/// cluster builds for it.
pub fn supported_versions() -> Vec<(Minor, &'static str)> {
    parse(VERSIONS)
}

/// The supported range: the first and the last line of the file.
pub fn supported_range() -> SupportedRange {
    let versions = supported_versions();
    // The file is part of this crate, not input; a unit test proves it parses
    // and is ordered, so these fallbacks never apply.
    let fallback = Minor { major: 1, minor: 0 };
    SupportedRange {
        oldest: versions.first().map_or(fallback, |v| v.0),
        newest: versions.last().map_or(fallback, |v| v.0),
    }
}

fn parse(text: &str) -> Vec<(Minor, &str)> {
    text.lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter_map(|line| {
            let mut fields = line.split_whitespace();
            let minor = Minor::parse(fields.next()?)?;
            Some((minor, fields.next()?))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(major: u32, minor: u32) -> Minor {
        Minor { major, minor }
    }

    #[test]
    fn the_file_lists_at_least_four_consecutive_minors_each_with_its_patch() {
        let lines = VERSIONS
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with('#'))
            .count();
        let versions = supported_versions();
        assert_eq!(versions.len(), lines, "every line parses");
        assert!(versions.len() >= 4, "{versions:?}");
        for pair in versions.windows(2) {
            assert_eq!(pair[0].0.major, pair[1].0.major);
            assert_eq!(pair[0].0.minor + 1, pair[1].0.minor, "{versions:?}");
        }
        for (minor, patch) in &versions {
            assert!(patch.starts_with(&format!("v{minor}.")), "{minor}: {patch}");
        }
    }

    #[test]
    fn the_range_runs_from_the_first_line_to_the_last() {
        let versions = supported_versions();
        let range = supported_range();
        assert_eq!(Some(range.oldest), versions.first().map(|v| v.0));
        assert_eq!(Some(range.newest), versions.last().map(|v| v.0));
    }

    /// k8s-openapi compiles against the oldest supported API.
    #[test]
    fn the_workspace_builds_against_the_oldest_supported_kubernetes() {
        let workspace = include_str!("../../Cargo.toml");
        let oldest = supported_range().oldest;
        let feature = format!("features = [\"v{}_{}\"]", oldest.major, oldest.minor);
        assert!(
            workspace
                .lines()
                .any(|l| l.starts_with("k8s-openapi") && l.contains(&feature)),
            "the workspace's k8s-openapi must carry {feature}"
        );
    }

    #[test]
    fn a_server_version_is_read_with_a_providers_suffix_and_refused_without_numbers() {
        assert_eq!(Minor::from_server("1", "34"), Some(v(1, 34)));
        assert_eq!(Minor::from_server("1", "34+"), Some(v(1, 34)));
        assert_eq!(Minor::from_server("1", "37-eks"), Some(v(1, 37)));
        assert_eq!(Minor::from_server("1", ""), None);
        assert_eq!(Minor::from_server("", "34"), None);
        assert_eq!(Minor::from_server("one", "34"), None);
    }

    #[test]
    fn outside_says_which_side_and_nothing_inside() {
        let range = SupportedRange {
            oldest: v(1, 34),
            newest: v(1, 37),
        };
        assert_eq!(range.outside(v(1, 33)), Some(Outside::Older));
        assert_eq!(range.outside(v(1, 34)), None);
        assert_eq!(range.outside(v(1, 36)), None);
        assert_eq!(range.outside(v(1, 37)), None);
        assert_eq!(range.outside(v(1, 38)), Some(Outside::Newer));
        assert_eq!(range.outside(v(2, 0)), Some(Outside::Newer));
        assert_eq!(range.outside(v(0, 99)), Some(Outside::Older));
        assert_eq!(range.to_string(), "1.34 to 1.37");
    }

    #[test]
    fn comments_blank_lines_and_malformed_lines_are_skipped() {
        let parsed = parse("# c\n\n1.34 v1.34.4\nnonsense\n1.x v1\n 1.35 v1.35.4 \n1.36\n");
        assert_eq!(parsed, vec![(v(1, 34), "v1.34.4"), (v(1, 35), "v1.35.4")]);
    }
}
