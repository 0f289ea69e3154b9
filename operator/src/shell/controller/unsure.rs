//! Runtimes whose stored status the operator cannot be sure of: a status
//! write that got no answer (it timed out, the connection broke, the
//! reconcile's deadline passed) may have been made all the same, and the
//! runtime's watch shows it only later, if at all before the next report.
//! That report reads the runtime fresh (see `report`): its Events are named
//! after the stored status. The runtime's record (`memory`) says whether it
//! is unsure.

/// Whether a write that failed with `err` may have been made all the same:
/// it got no answer (a timeout, a broken connection), or the API server
/// answered that it could not tell (a 5xx such as 504, "the request timed
/// out", after it may have stored the write). A 4xx is a refusal: nothing
/// was written.
pub fn may_have_written(err: &kube::Error) -> bool {
    match err {
        kube::Error::Api(status) => status.code >= 500,
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use kube::core::Status;

    use super::may_have_written;

    fn answered(code: u16) -> kube::Error {
        kube::Error::Api(Status::failure("", "").with_code(code).boxed())
    }

    #[test]
    fn a_write_may_have_been_made_unless_the_api_server_refused_it() {
        for code in [500, 503, 504] {
            assert!(may_have_written(&answered(code)), "{code}");
        }
        for code in [400, 403, 404, 409, 422, 429] {
            assert!(!may_have_written(&answered(code)), "{code}");
        }
        let no_answer = kube::Error::Service(std::io::Error::other("timed out").into());
        assert!(may_have_written(&no_answer));
    }
}
