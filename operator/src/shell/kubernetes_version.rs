//! The API server's Kubernetes version against the supported range
//! (`trussium_api::kubernetes`): outside it, one warning at start naming the
//! range, and the operator goes on. Nothing else changes with the version:
//! where the API server lacks a feature (streamed lists), the code that uses
//! it falls back on its own answer, not on this number.

use kube::Client;
use trussium_api::kubernetes::{Minor, Outside, SupportedRange, supported_range};

/// Asks the API server for its version (`/version`, readable by every
/// authenticated user) and logs a warning when it is outside the supported
/// range. An unanswered request is logged at debug level only: the
/// controller's own requests report a real outage.
pub async fn warn_if_unsupported(client: Client) {
    match client.apiserver_version().await {
        Ok(info) => {
            if let Some(text) = warning(
                &info.git_version,
                &info.major,
                &info.minor,
                supported_range(),
            ) {
                tracing::warn!(server = %info.git_version, supported = %supported_range(), "{text}");
            }
        }
        Err(err) => tracing::debug!(%err, "could not read the API server's version"),
    }
}

/// The warning for a server that reports `major`.`minor` (its `gitVersion`
/// for the reader), or `None` inside the range. A version that holds no
/// number is warned about too: nobody tested against it.
pub fn warning(
    git_version: &str,
    major: &str,
    minor: &str,
    range: SupportedRange,
) -> Option<String> {
    let Some(version) = Minor::from_server(major, minor) else {
        return Some(format!(
            "the API server reports a version that is not a Kubernetes release ({git_version:?}); \
             this operator supports Kubernetes {range}"
        ));
    };
    let side = match range.outside(version)? {
        Outside::Older => "older than",
        Outside::Newer => "newer than",
    };
    Some(format!(
        "the API server runs Kubernetes {version} ({git_version}), {side} the versions this operator \
         supports ({range}); it goes on, untested there"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range() -> SupportedRange {
        SupportedRange {
            oldest: Minor {
                major: 1,
                minor: 34,
            },
            newest: Minor {
                major: 1,
                minor: 37,
            },
        }
    }

    #[test]
    fn inside_the_range_nothing_is_said() {
        assert_eq!(warning("v1.34.4", "1", "34", range()), None);
        assert_eq!(warning("v1.37.2", "1", "37", range()), None);
        assert_eq!(warning("v1.35.1-gke.3", "1", "35+", range()), None);
    }

    #[test]
    fn outside_the_range_the_warning_names_the_version_the_side_and_the_range() {
        assert_eq!(
            warning("v1.33.13", "1", "33", range()).as_deref(),
            Some(
                "the API server runs Kubernetes 1.33 (v1.33.13), older than the versions this \
                 operator supports (1.34 to 1.37); it goes on, untested there"
            )
        );
        assert_eq!(
            warning("v1.38.0", "1", "38", range()).as_deref(),
            Some(
                "the API server runs Kubernetes 1.38 (v1.38.0), newer than the versions this \
                 operator supports (1.34 to 1.37); it goes on, untested there"
            )
        );
    }

    #[test]
    fn a_version_without_numbers_is_warned_about() {
        assert_eq!(
            warning("custom", "", "", range()).as_deref(),
            Some(
                "the API server reports a version that is not a Kubernetes release (\"custom\"); \
                 this operator supports Kubernetes 1.34 to 1.37"
            )
        );
    }
}
