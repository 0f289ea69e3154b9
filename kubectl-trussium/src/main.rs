//! `kubectl-trussium`: the kubectl plugin for Trussium runtimes.

fn main() -> std::process::ExitCode {
    kubectl_trussium::main()
}
