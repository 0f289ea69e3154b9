
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kubectl-trussium' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kubectl-trussium'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kubectl-trussium' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show one runtime in detail, or list the runtimes of a namespace')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Change the runtime image to a new tag or digest, and optionally wait for the rollout')
            [CompletionResult]::new('rollback', 'rollback', [CompletionResultType]::ParameterValue, 'Go back to an earlier image (by default the one before the current), and optionally wait')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'List the images a runtime has run, newest first')
            [CompletionResult]::new('scale', 'scale', [CompletionResultType]::ParameterValue, 'Set the number of runtime replicas (0 scales the runtime down)')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'Show the runtime''s Events, oldest first')
            [CompletionResult]::new('diagnose', 'diagnose', [CompletionResultType]::ParameterValue, 'Say why a runtime is not Ready: the root cause first, with the next step, then the evidence')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check the cluster, the CRD, the operator, its leader and your access; say what to fix')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install (or upgrade) the CRD and the operator of this plugin''s version')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the operator; the CRD and the runtimes stay')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Rewrite every runtime in the CRD''s storage version, so older versions can be dropped')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the plugin''s version and platform')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-trussium;status' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the view')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the view')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Keep watching and redraw when something changes')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep watching and redraw when something changes')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;upgrade' {
            [CompletionResult]::new('--tag', '--tag', [CompletionResultType]::ParameterName, 'New image tag (replaces a digest)')
            [CompletionResult]::new('--digest', '--digest', [CompletionResultType]::ParameterName, 'New image digest, sha256:<64 hex> (replaces a tag)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long --wait waits, e.g. 90s, 5m, 1h30m')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Follow the rollout until the operator reports the upgrade complete or failed')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;rollback' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long --wait waits, e.g. 90s, 5m, 1h30m')
            [CompletionResult]::new('--to-image', '--to-image', [CompletionResultType]::ParameterName, 'Go back to this image the runtime ran: a full reference, or its tag or digest')
            [CompletionResult]::new('--to-revision', '--to-revision', [CompletionResultType]::ParameterName, 'Go back to the image of this revision (see `history`)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Follow the rollout until the operator reports it complete or failed')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;history' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the table')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the table')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;scale' {
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, 'The new replica count, 0 to 1000 (the API''s bound)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Set spec.replicas even while autoscaling owns the replica count')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;events' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the table')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the table')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Keep watching and print new Events as they happen')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Keep watching and print new Events as they happen')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;diagnose' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Print the findings as JSON or YAML instead of the report')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Print the findings as JSON or YAML instead of the report')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;check' {
            [CompletionResult]::new('--operator-namespace', '--operator-namespace', [CompletionResultType]::ParameterName, 'The namespace the operator is installed in (default: trussium-system)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the checklist')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Print machine-readable output instead of the checklist')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;install' {
            [CompletionResult]::new('--watch-namespace', '--watch-namespace', [CompletionResultType]::ParameterName, 'Watch only this namespace (default: all); the operator''s permissions become a Role there instead of a ClusterRole')
            [CompletionResult]::new('--replicas', '--replicas', [CompletionResultType]::ParameterName, 'Operator replicas (default: 2, a leader and a standby)')
            [CompletionResult]::new('--image', '--image', [CompletionResultType]::ParameterName, 'Operator image, e.g. from a private registry: REPOSITORY[:TAG|@sha256:DIGEST]; a repository alone gets this version''s tag')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print what would be applied (client), or also have the API server check every object without applying it (server)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Print the objects instead of applying them (with --dry-run=server: as the API server would store them)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Print the objects instead of applying them (with --dry-run=server: as the API server would store them)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long --wait waits, e.g. 90s, 5m, 1h30m')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'Wait until the operator is available')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;uninstall' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Remove the operator even though runtimes exist (they keep serving, unmanaged)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;migrate' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Say what would be rewritten, write nothing')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;completion' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;version' {
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'Namespace of the runtime (default: the context''s namespace); for install and uninstall, the operator''s own (default: trussium-system)')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate (repeat for several); needs --as')
            [CompletionResult]::new('--as-uid', '--as-uid', [CompletionResultType]::ParameterName, 'UID to impersonate; needs --as')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The kubeconfig cluster to use')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'The kubeconfig user to use')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address of the API server (https://HOST:PORT)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server')
            [CompletionResult]::new('--certificate-authority', '--certificate-authority', [CompletionResultType]::ParameterName, 'A CA certificate file (PEM) to verify the API server with')
            [CompletionResult]::new('--client-certificate', '--client-certificate', [CompletionResultType]::ParameterName, 'A client certificate file (PEM) for TLS')
            [CompletionResult]::new('--client-key', '--client-key', [CompletionResultType]::ParameterName, 'A client key file (PEM) for TLS')
            [CompletionResult]::new('--tls-server-name', '--tls-server-name', [CompletionResultType]::ParameterName, 'The server name to verify the API server''s certificate against')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'List runtimes across all namespaces')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the API server''s certificate (insecure)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kubectl-trussium;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Show one runtime in detail, or list the runtimes of a namespace')
            [CompletionResult]::new('upgrade', 'upgrade', [CompletionResultType]::ParameterValue, 'Change the runtime image to a new tag or digest, and optionally wait for the rollout')
            [CompletionResult]::new('rollback', 'rollback', [CompletionResultType]::ParameterValue, 'Go back to an earlier image (by default the one before the current), and optionally wait')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'List the images a runtime has run, newest first')
            [CompletionResult]::new('scale', 'scale', [CompletionResultType]::ParameterValue, 'Set the number of runtime replicas (0 scales the runtime down)')
            [CompletionResult]::new('events', 'events', [CompletionResultType]::ParameterValue, 'Show the runtime''s Events, oldest first')
            [CompletionResult]::new('diagnose', 'diagnose', [CompletionResultType]::ParameterValue, 'Say why a runtime is not Ready: the root cause first, with the next step, then the evidence')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check the cluster, the CRD, the operator, its leader and your access; say what to fix')
            [CompletionResult]::new('install', 'install', [CompletionResultType]::ParameterValue, 'Install (or upgrade) the CRD and the operator of this plugin''s version')
            [CompletionResult]::new('uninstall', 'uninstall', [CompletionResultType]::ParameterValue, 'Remove the operator; the CRD and the runtimes stay')
            [CompletionResult]::new('migrate', 'migrate', [CompletionResultType]::ParameterValue, 'Rewrite every runtime in the CRD''s storage version, so older versions can be dropped')
            [CompletionResult]::new('completion', 'completion', [CompletionResultType]::ParameterValue, 'Print a shell completion script')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Print the plugin''s version and platform')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kubectl-trussium;help;status' {
            break
        }
        'kubectl-trussium;help;upgrade' {
            break
        }
        'kubectl-trussium;help;rollback' {
            break
        }
        'kubectl-trussium;help;history' {
            break
        }
        'kubectl-trussium;help;scale' {
            break
        }
        'kubectl-trussium;help;events' {
            break
        }
        'kubectl-trussium;help;diagnose' {
            break
        }
        'kubectl-trussium;help;check' {
            break
        }
        'kubectl-trussium;help;install' {
            break
        }
        'kubectl-trussium;help;uninstall' {
            break
        }
        'kubectl-trussium;help;migrate' {
            break
        }
        'kubectl-trussium;help;completion' {
            break
        }
        'kubectl-trussium;help;version' {
            break
        }
        'kubectl-trussium;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
