# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kubectl_trussium_global_optspecs
    string join \n kubeconfig= context= n/namespace= A/all-namespaces color= as= as-group= as-uid= request-timeout= cluster= user= s/server= token= certificate-authority= client-certificate= client-key= insecure-skip-tls-verify tls-server-name= v/v= h/help V/version
end

function __fish_kubectl_trussium_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kubectl_trussium_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kubectl_trussium_using_subcommand
    set -l cmd (__fish_kubectl_trussium_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "status" -d 'Show one runtime in detail, or list the runtimes of a namespace'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "create" -d 'Create a runtime from flags (or print it with --dry-run), and optionally wait until it is Ready'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "upgrade" -d 'Change the runtime image to a new tag or digest, and optionally wait for the rollout'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "rollback" -d 'Go back to an earlier image (by default the one before the current), and optionally wait'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "history" -d 'List the images a runtime has run, newest first'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "scale" -d 'Set the number of runtime replicas (0 scales the runtime down)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "restart" -d 'Roll the runtime\'s pods (declaratively, through the operator), and optionally wait'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "suspend" -d 'Suspend a runtime: the operator changes none of its objects until it is resumed'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "resume" -d 'Resume a suspended runtime: the operator puts its objects back to the spec'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "events" -d 'Show the runtime\'s Events, oldest first'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "diagnose" -d 'Say why a runtime is not Ready: the root cause first, with the next step, then the evidence'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "logs" -d 'Print the runtime container\'s log from every pod, each line prefixed with its pod; -f follows'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "check" -d 'Check the cluster, the CRD, the operator, its leader and your access; say what to fix'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "install" -d 'Install (or upgrade) the CRD and the operator of this plugin\'s version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "uninstall" -d 'Remove the operator; the CRD and the runtimes stay'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "migrate" -d 'Rewrite every runtime in the CRD\'s storage version, so older versions can be dropped'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "version" -d 'Print the plugin\'s version and platform'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s o -l output -d 'Print machine-readable output instead of the view' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s w -l watch -d 'Keep watching and redraw when something changes'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand status" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l provider -d 'The model provider' -r -f -a "openai\t''
ollama\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l model -d 'The provider\'s model, e.g. gpt-5 or llama3.2' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l base-url -d 'The provider\'s (or a compatible) API endpoint, http:// or https://' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l credentials-secret -d 'The Secret and key holding the provider\'s credential, NAME:KEY (the value is never read)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l image -d 'The runtime image, REPOSITORY:TAG or REPOSITORY@sha256:DIGEST' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l replicas -d 'Runtime replicas, 0 to 1000' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l dry-run -d 'none: create it; client: only print it; server: have the cluster\'s CRD check it, create nothing' -r -f -a "none\t''
client\t''
server\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -s o -l output -d 'Print the runtime (as created, or as it would be) instead of a summary' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l timeout -d 'How long --wait waits, e.g. 90s, 5m, 1h30m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l wait -d 'Wait until the runtime is Ready'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand create" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l tag -d 'New image tag (replaces a digest)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l digest -d 'New image digest, sha256:<64 hex> (replaces a tag)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l timeout -d 'How long --wait waits, e.g. 90s, 5m, 1h30m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l wait -d 'Follow the rollout until the operator reports the upgrade complete or failed'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l force -d 'On a suspended runtime: record the change in the spec anyway; it is applied once the runtime is resumed'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand upgrade" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l timeout -d 'How long --wait waits, e.g. 90s, 5m, 1h30m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l to-image -d 'Go back to this image the runtime ran: a full reference, or its tag or digest' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l to-revision -d 'Go back to the image of this revision (see `history`)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l wait -d 'Follow the rollout until the operator reports it complete or failed'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l force -d 'On a suspended runtime: record the change in the spec anyway; it is applied once the runtime is resumed'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand rollback" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -s o -l output -d 'Print machine-readable output instead of the table' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand history" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l replicas -d 'The new replica count, 0 to 1000 (the API\'s bound)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l force -d 'Set spec.replicas even while autoscaling owns the replica count, or the runtime is suspended'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand scale" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l timeout -d 'How long --wait waits, e.g. 90s, 5m, 1h30m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l wait -d 'Follow the rollout until every desired replica runs the restarted pod template'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l force -d 'On a suspended runtime: record the restart anyway; it happens once the runtime is resumed'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand restart" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l reason -d 'Why, for whoever finds it suspended (shown by status and in the Event)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand suspend" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand resume" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s o -l output -d 'Print machine-readable output instead of the table' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s w -l watch -d 'Keep watching and print new Events as they happen'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand events" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -s o -l output -d 'Print the findings as JSON or YAML instead of the report' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand diagnose" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l since -d 'Only lines newer than this, e.g. 30s, 5m, 1h' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l tail -d 'Only the last N lines of each pod' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l pod -d 'Only this pod of the runtime' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s f -l follow -d 'Keep streaming: new lines, and the pods that start meanwhile'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s p -l previous -d 'The previous run of each container (after a crash or a restart)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l timestamps -d 'Start each line with its timestamp'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand logs" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l operator-namespace -d 'The namespace the operator is installed in (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -s o -l output -d 'Print machine-readable output instead of the checklist' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand check" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l watch-namespace -d 'Watch only this namespace (default: all); the operator\'s permissions become a Role there instead of a ClusterRole' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l replicas -d 'Operator replicas (default: 2, a leader and a standby)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l image -d 'Operator image, e.g. from a private registry: REPOSITORY[:TAG|@sha256:DIGEST]; a repository alone gets this version\'s tag' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l dry-run -d 'Print what would be applied (client), or also have the API server check every object without applying it (server)' -r -f -a "client\t'Print what would be applied; no request to the cluster'
server\t'Check permissions and have the API server dry-run every object'"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -s o -l output -d 'Print the objects instead of applying them (with --dry-run=server: as the API server would store them)' -r -f -a "json\t''
yaml\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l timeout -d 'How long --wait waits, e.g. 90s, 5m, 1h30m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l wait -d 'Wait until the operator is available'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand install" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l force -d 'Remove the operator even though runtimes exist (they keep serving, unmanaged)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand uninstall" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l dry-run -d 'Say what would be rewritten, write nothing'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand migrate" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand completion" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l kubeconfig -d 'Path to the kubeconfig file (default: $KUBECONFIG, then ~/.kube/config)' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l context -d 'The kubeconfig context to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -s n -l namespace -d 'Namespace of the runtime (default: the context\'s namespace); for install and uninstall, the operator\'s own (default: trussium-system)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l color -d 'When to use colours (auto: only on a terminal, and never with NO_COLOR set)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l as -d 'Username to impersonate for the command: a user, or a ServiceAccount as system:serviceaccount:NAMESPACE:NAME' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l as-group -d 'Group to impersonate (repeat for several); needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l as-uid -d 'UID to impersonate; needs --as' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l request-timeout -d 'How long one request may wait for an answer: 0 waits forever (default); e.g. 30s, 1m' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l cluster -d 'The kubeconfig cluster to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l user -d 'The kubeconfig user to use' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -s s -l server -d 'The address of the API server (https://HOST:PORT)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l token -d 'Bearer token for authentication to the API server' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l certificate-authority -d 'A CA certificate file (PEM) to verify the API server with' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l client-certificate -d 'A client certificate file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l client-key -d 'A client key file (PEM) for TLS' -r -F
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l tls-server-name -d 'The server name to verify the API server\'s certificate against' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -s v -l v -d 'Log verbosity: 6 and above print one line per request on stderr (verb, URL, status, time; never a body)' -r
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -s A -l all-namespaces -d 'List runtimes across all namespaces'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -l insecure-skip-tls-verify -d 'Do not verify the API server\'s certificate (insecure)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -s h -l help -d 'Print help'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand version" -s V -l version -d 'Print version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "status" -d 'Show one runtime in detail, or list the runtimes of a namespace'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "create" -d 'Create a runtime from flags (or print it with --dry-run), and optionally wait until it is Ready'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "upgrade" -d 'Change the runtime image to a new tag or digest, and optionally wait for the rollout'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "rollback" -d 'Go back to an earlier image (by default the one before the current), and optionally wait'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "history" -d 'List the images a runtime has run, newest first'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "scale" -d 'Set the number of runtime replicas (0 scales the runtime down)'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "restart" -d 'Roll the runtime\'s pods (declaratively, through the operator), and optionally wait'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "suspend" -d 'Suspend a runtime: the operator changes none of its objects until it is resumed'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "resume" -d 'Resume a suspended runtime: the operator puts its objects back to the spec'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "events" -d 'Show the runtime\'s Events, oldest first'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "diagnose" -d 'Say why a runtime is not Ready: the root cause first, with the next step, then the evidence'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "logs" -d 'Print the runtime container\'s log from every pod, each line prefixed with its pod; -f follows'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "check" -d 'Check the cluster, the CRD, the operator, its leader and your access; say what to fix'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "install" -d 'Install (or upgrade) the CRD and the operator of this plugin\'s version'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "uninstall" -d 'Remove the operator; the CRD and the runtimes stay'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "migrate" -d 'Rewrite every runtime in the CRD\'s storage version, so older versions can be dropped'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "completion" -d 'Print a shell completion script'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "version" -d 'Print the plugin\'s version and platform'
complete -c kubectl-trussium -n "__fish_kubectl_trussium_using_subcommand help; and not __fish_seen_subcommand_from status create upgrade rollback history scale restart suspend resume events diagnose logs check install uninstall migrate completion version help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
