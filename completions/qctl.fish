# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_qctl_global_optspecs
    string join \n u/redis= user= password-file= tls-ca-cert= tls-cert= tls-key= tls-insecure cluster q/quiet v/verbose no-color connect-timeout= response-timeout= V/version json h/help
end

function __fish_qctl_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_qctl_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_qctl_using_subcommand
    set -l cmd (__fish_qctl_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c qctl -n "__fish_qctl_needs_command" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_needs_command" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_needs_command" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_needs_command" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_needs_command" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_needs_command" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_needs_command" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_needs_command" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_needs_command" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_needs_command" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_needs_command" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_needs_command" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_needs_command" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_needs_command" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_needs_command" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "enqueue" -d 'Add jobs to a queue'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "wait" -d 'Wait until a queue is idle, or until the given jobs have ended'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "stats" -d 'Count what each queue holds: jobs by state, consumers, paused'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "metrics" -d 'Serve the queues\' counts to Prometheus over HTTP (GET /metrics)'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "check" -d 'Check queues against thresholds, for cron, CI and monitoring'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "top" -d 'A live full-screen view of the queues, consumers and dead jobs'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "web" -d 'Serve a live view of the queues to a browser, on 127.0.0.1:9188'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "dead" -d 'Look at and repair dead jobs (jobs that ran out of retries)'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "scheduled" -d 'Look at and change scheduled jobs (delayed jobs and retries)'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "active" -d 'Look at and delete jobs that are ready to run'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "find" -d 'Look for a text in a queue\'s jobs: their ids, data and failures'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "tail" -d 'Follow what happens to queues: deaths, retries, consumers, pauses'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "inflight" -d 'List the jobs in flight (reserved by consumers), longest first'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "consumers" -d 'List a queue\'s consumers; quiet, stop or resize one'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "cancel" -d 'Cancel running jobs: stop their handlers, settle the jobs'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "orphans" -d 'Return the in-flight jobs of expired consumers to the queue'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "pause" -d 'Stop qctl consumers taking a queue\'s jobs (running ones finish)'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "resume" -d 'Let qctl consumers reserve jobs of a paused queue again'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "purge" -d 'Delete a whole queue: every job in every state, and its keys'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "export" -d 'Write a whole queue as JSON lines, every job in every state'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "import" -d 'Read what `qctl export` wrote into a queue, each job in its state'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "move" -d 'Move a live queue to another name or server, a chunk at a time'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "limit" -d 'Show or set a queue\'s shared rate and cap on running jobs'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "doctor" -d 'Check a queue\'s server, rights and integrity, with fixes'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "changes" -d 'List the changes made to a queue: who, when, what, how many jobs'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "completions" -d 'Print a shell completion script to standard output'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "man" -d 'Print the manual page qctl.1, or write every page to a directory'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "help" -d 'Help on a command or a topic: qctl help topics lists them'
complete -c qctl -n "__fish_qctl_needs_command" -f -a "consume" -d 'Run a command for every job of a queue: a CurlyQ consumer'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l file -d 'Read the job\'s data (or the jobs) from this file' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l id -d 'The job\'s id [default: a new UUID v4]' -r
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l in -d 'Run the job after this delay: 90s, 10m, 2h, 3d, 1h30m' -r
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l at -d 'Run the job at this time (RFC 3339, unix seconds)' -r
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l lines -d 'Every input line is the data of one job'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l keep-cr -d 'With --lines, keep a \\r that ends a line'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l jsonl -d 'Every input line is a job as a JSON object'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand enqueue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l timeout -d 'Give up after this long (exit 124)' -r
complete -c qctl -n "__fish_qctl_using_subcommand wait" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l scheduled -d 'Also wait for the jobs scheduled for later'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand wait" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l watch -d 'Redraw every DUR (default 2s) with rates' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l max-keys -d 'Scan at most N keys for queues' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l history -d 'Show what consumers did over the last DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l step -d 'The step of --history, in whole minutes' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l prometheus -d 'Print the counts in the Prometheus text format'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l listen -d 'The address to serve on' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l min-interval -d 'Read Redis at most once per DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l max-keys -d 'Scan at most N keys for queues' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l allow-missing -d 'Serve a queue named that has no key on the server (yet), with counts of 0 until it appears. Without it, such a name (mistyped?) is refused at start with exit 5'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand metrics" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand check" -l dead-max -d 'CRITICAL when a queue has more than N dead jobs' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l warn-dead -d 'WARNING when a queue has more than N dead jobs' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l ready-max -d 'CRITICAL when more than N jobs are ready to run' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l warn-ready -d 'WARNING when more than N jobs are ready to run' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l overdue-max -d 'CRITICAL when a due job waited longer than DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l warn-overdue -d 'WARNING when a due job waited longer than DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l min-consumers -d 'CRITICAL when fewer than N consumers are alive' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l warn-min-consumers -d 'WARNING when fewer than N consumers are alive' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l failure-rate-max -d 'CRITICAL when over R of the runs failed' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l warn-failure-rate -d 'WARNING when over R of the runs failed' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l window -d 'The span of the failure rate' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l max-keys -d 'Scan at most N keys for queues' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand check" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand check" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand check" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand check" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand check" -l stale-consumers -d 'CRITICAL when a consumer\'s heartbeat is stale'
complete -c qctl -n "__fish_qctl_using_subcommand check" -l warn-stale-consumers -d 'WARNING when a consumer\'s heartbeat is stale'
complete -c qctl -n "__fish_qctl_using_subcommand check" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand check" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand check" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand check" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand check" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand check" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand check" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand top" -l interval -d 'Refresh every DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand top" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand top" -l max-keys -d 'Scan at most N keys for queues' -r
complete -c qctl -n "__fish_qctl_using_subcommand top" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand top" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand top" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand top" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand top" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand top" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand top" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand top" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand top" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand top" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand top" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand top" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand top" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand top" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand top" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand top" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand web" -l listen -d 'The address to serve on' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l interval -d 'Read Redis every DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l web-password-file -d 'The page\'s password: FILE\'s first line' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand web" -l allowed-host -d 'Also answer requests for host NAME (repeatable)' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l https-cert -d 'Serve HTTPS with this certificate chain (PEM); needs --https-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand web" -l https-key -d 'The private key (PEM) of --https-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand web" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l max-keys -d 'Scan at most N keys for queues' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand web" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand web" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand web" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand web" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand web" -l no-auth -d 'Serve without a password on an address other than loopback'
complete -c qctl -n "__fish_qctl_using_subcommand web" -l allow-missing -d 'Show a queue named that has no key on the server (yet), with counts of 0 until it appears. Without it, such a name (mistyped?) is refused at start with exit 5'
complete -c qctl -n "__fish_qctl_using_subcommand web" -l read-only -d 'Refuse every change (403) and show no form'
complete -c qctl -n "__fish_qctl_using_subcommand web" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand web" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand web" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand web" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand web" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand web" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand web" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand web" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -f -a "list" -d 'List dead jobs, newest first'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -f -a "show" -d 'Show one dead job: its record and why it failed'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -f -a "requeue" -d 'Move dead jobs back to the queue (Attempt reset to 0, failure cleared)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -f -a "delete" -d 'Delete dead jobs with their records'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -f -a "export" -d 'Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and not __fish_seen_subcommand_from list show requeue delete export groups" -f -a "groups" -d 'Group dead jobs by the cause of their failure, largest group first'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l limit -d 'How many jobs to show (0: every one)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l offset -d 'Skip this many jobs' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l jsonl -d 'One JSON object per line, with full data'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l raw -d 'Write only the job\'s data bytes to standard output'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l all -d 'Every job (narrowed by the filters, if any)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l keep-attempts -d 'Keep each job\'s Attempt instead of resetting it'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from requeue" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l older-than -d 'Only jobs that died longer ago than this (e.g. 30d)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l all -d 'Every job (narrowed by the filters, if any)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l limit -d 'How many groups to show (0: all)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand dead; and __fish_seen_subcommand_from groups" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -f -a "list" -d 'List scheduled jobs, soonest first'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -f -a "show" -d 'Show one scheduled job'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -f -a "run-now" -d 'Make scheduled jobs ready now'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -f -a "delete" -d 'Delete scheduled jobs with their records'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and not __fish_seen_subcommand_from list show run-now delete groups" -f -a "groups" -d 'Group retries by the cause of their last failure, largest group first'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l limit -d 'How many jobs to show (0: every one)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l offset -d 'Skip this many jobs' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l jsonl -d 'One JSON object per line, with full data'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l raw -d 'Write only the job\'s data bytes to standard output'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l all -d 'Every job (narrowed by the filters, if any)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from run-now" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l all -d 'Every job (narrowed by the filters, if any)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l limit -d 'How many groups to show (0: all)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand scheduled; and __fish_seen_subcommand_from groups" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -f -a "list" -d 'Show the jobs at the head of the queue (next to run first); reserves nothing'
complete -c qctl -n "__fish_qctl_using_subcommand active; and not __fish_seen_subcommand_from list delete" -f -a "delete" -d 'Delete ready jobs with their records'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l limit -d 'How many jobs to show (0: every one)' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l offset -d 'Skip this many jobs' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l grep -d 'Only jobs whose data contains TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l reason -d 'Only jobs whose failure mentions TEXT' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l group -d 'Only jobs of one failure group' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l since -d 'Only jobs at or after TIME (2h: two hours ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l until -d 'Only jobs at or before TIME (as --since)' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l min-attempts -d 'Only jobs that failed at least N times' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l jsonl -d 'One JSON object per line, with full data'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand active; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand find" -l in -d 'Only in these places, comma-separated' -r -f -a "ready\t''
scheduled\t''
inflight\t''
dead\t''"
complete -c qctl -n "__fish_qctl_using_subcommand find" -l limit -d 'Stop after N jobs found (0: every one)' -r
complete -c qctl -n "__fish_qctl_using_subcommand find" -l max-scan -d 'Stop after looking at N jobs (0: every one)' -r
complete -c qctl -n "__fish_qctl_using_subcommand find" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand find" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand find" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand find" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand find" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand find" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand find" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand find" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand find" -l jsonl -d 'One JSON object per line'
complete -c qctl -n "__fish_qctl_using_subcommand find" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand find" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand find" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand find" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand find" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand find" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand find" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand find" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l since -d 'Start with what happened since TIME (10m: ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l interval -d 'Print the counts every DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l poll -d 'Look for changes every DUR' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l failures -d 'Only failures: jobs dead and retries scheduled'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l no-follow -d 'Print what happened and exit; do not follow'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand tail" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l limit -d 'How many jobs to show (0: every one)' -r
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l offset -d 'Skip this many jobs' -r
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l jsonl -d 'One JSON object per line, with full data'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand inflight" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -a "quiet" -d 'Quiet a consumer: no new jobs; running ones finish; it stays'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -a "stop" -d 'Stop a consumer cleanly, as SIGTERM does, from any host'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and not __fish_seen_subcommand_from quiet stop resize" -a "resize" -d 'Change how many jobs a consumer runs at once, while it runs'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l queue -d 'Look for the consumer in this queue only (else every queue is searched)' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l all -d 'Every qctl consumer of the queue given'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from quiet" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l queue -d 'Look for the consumer in this queue only (else every queue is searched)' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l all -d 'Every qctl consumer of the queue given'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l queue -d 'Look for the consumer in this queue only (else every queue is searched)' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -s c -l concurrency -d 'How many jobs it runs at once from now on' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l all -d 'Every qctl consumer of the queue given'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand consumers; and __fish_seen_subcommand_from resize" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l retry -d 'Run each job again at once (its attempt counted) rather than burying it'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l dead -d 'Move each job to the dead set (the default)'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand cancel" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l orphan-after -d 'Heartbeat age that counts as expired' -r
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand orphans" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand pause" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand resume" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l forget-changes -d 'Delete the record of the queue\'s changes (NAME:changes) too: nothing is left'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand purge" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand export" -l state -d 'Export only jobs in this state (repeat for more)' -r
complete -c qctl -n "__fish_qctl_using_subcommand export" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand export" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand export" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand export" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand export" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand export" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand export" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand export" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand export" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand export" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand export" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand export" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand export" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand export" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand export" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand import" -l file -d 'Read the lines from this file' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand import" -l in-flight-delay -d 'Schedule jobs that were in flight this long ahead' -r
complete -c qctl -n "__fish_qctl_using_subcommand import" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand import" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand import" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand import" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand import" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand import" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand import" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand import" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand import" -l replace -d 'Replace jobs whose ids the queue has'
complete -c qctl -n "__fish_qctl_using_subcommand import" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand import" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand import" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand import" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand import" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand import" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand import" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to -d 'The destination\'s Redis URL' -r
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to-user -d 'The destination\'s ACL user name (overrides a user in --to). Its password comes from $QCTL_TO_REDIS_PASSWORD or --to-password-file' -r
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to-password-file -d 'Read the destination\'s password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to-tls-ca-cert -d 'Verify the destination with this CA certificate (PEM)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to-tls-cert -d 'Client certificate (PEM) for the destination; needs --to-tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to-tls-key -d 'The destination\'s client certificate key (PEM); needs --to-tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l wait -d 'Wait this long for jobs in flight there' -r
complete -c qctl -n "__fish_qctl_using_subcommand move" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand move" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand move" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand move" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand move" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to-tls-insecure -d 'Do not verify the destination\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l to-cluster -d '--to names a node of a Redis Cluster (the destination name needs a hash tag)'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l take-in-flight -d 'Also take the jobs in flight at the source'
complete -c qctl -n "__fish_qctl_using_subcommand move" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand move" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand move" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand move" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand move" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand move" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l rate -d 'Jobs started per interval, by all consumers: 100/s' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l burst -d 'Jobs the rate lets start at once [default: 1]' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l max-running -d 'Jobs running at once, across all consumers' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l orphan-after -d 'Heartbeat age that counts as gone' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l no-rate -d 'Remove the rate (and its burst)'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l no-max-running -d 'Remove the cap on running jobs'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l clear -d 'Remove every limit'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand limit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l fix -d 'Repair what needs no guessing (asks first)'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -s y -l yes -d 'Do it without asking'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l dry-run -d 'Show what would be done; change nothing'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand doctor" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l since -d 'Only changes made since TIME (10m: ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l until -d 'Only changes made until TIME (10m: ago)' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l limit -d 'How many of the newest changes to show (0: every one)' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l ids -d 'Print the ids of the jobs the change ENTRY touched, one a line' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand changes" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand man" -l dir -d 'Write every page into DIR' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand man" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand man" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand man" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand man" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand man" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand man" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand man" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand man" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand man" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand man" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand man" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand man" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand man" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand man" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand man" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand man" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand help" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand help" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand help" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand help" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand help" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand help" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand help" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand help" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand help" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand help" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand help" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand help" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand help" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand help" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand help" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l weights -d 'With several queues: share the starts by weight (6,3,1) rather than strictly in order' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l queue -d 'The queue\'s name, for names that start with \'-\' (`--queue=-jobs`)' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -s c -l concurrency -d 'How many handlers run at once [default: CPUs]' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l buffer -d 'How many reserved jobs may wait locally for a free handler [default: about 20 ms of work, measured as jobs run: --concurrency at least, 1000 at most]' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l timeout -d 'Stop a handler that runs longer than this' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l kill-after -d 'Time between SIGTERM and SIGKILL when a handler is stopped' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l max-retries -d 'Retries before a job goes dead [default: 20; with --drain: 2]' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l max-backoff -d 'The longest wait before a retry [default: 7d; with --drain: 10s]' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l heartbeat -d 'How often this consumer renews its heartbeat' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l orphan-after -d 'Another consumer whose heartbeat is older than this is dead and its jobs are recovered. Keep it at 2m or more beside Go CurlyQ consumers (they beat every 60s)' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l poll-interval -d 'The longest an idle consumer waits for a wake-up before it looks again' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l shutdown-grace -d 'On SIGINT/SIGTERM, how long running handlers may finish before they are stopped and their jobs returned to the queue' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l max-jobs -d 'Exit after this many jobs' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l rate -d 'Start at most this many jobs per interval: 20/s' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l burst -d 'With --rate: how many may start at once' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l replace -d 'Replace STR in ARGS by the job\'s data (xargs -I)' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l pipe-depth -d 'With --pipe: how many jobs may be outstanding per handler (answers matched by id) [default: automatic, per handler: from 1, doubling up to 64 while it answers within 5 ms a job, halving when an answer takes over 100 ms]' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -s u -l redis -d 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l user -d 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l password-file -d 'Read the Redis password from FILE (its first line)' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l tls-ca-cert -d 'Verify the server with this CA certificate (PEM) instead of the system\'s trust store' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l tls-cert -d 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l tls-key -d 'The client certificate\'s private key (PEM); needs --tls-cert' -r -F
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l connect-timeout -d 'How long to wait for a connection to Redis' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l response-timeout -d 'How long to wait for Redis to answer a command' -r
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l drain -d 'Run every job that can run, then exit'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l wait-scheduled -d 'With --drain: also run jobs scheduled for later'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l prefix -d 'Put "[<job id>] " before every line a handler prints'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l pipe -d 'Feed jobs to long-lived handlers (qctl help pipe)'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l json -d 'Print results as JSON'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l tls-insecure -d 'Do not verify the server\'s TLS certificate (a warning says so)'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l cluster -d 'The URL names a node of a Redis Cluster: commands go to the node owning each queue\'s slot. Queue names need a hash tag, as in {mail}'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -s q -l quiet -d 'Print only results: no progress, no summaries, no warnings'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -s v -l verbose -d 'Print more detail about what is being done (repeat for more)'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -l no-color -d 'Never use colour (also: the NO_COLOR environment variable)'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -s V -l version -d 'Print version'
complete -c qctl -n "__fish_qctl_using_subcommand consume" -s h -l help -d 'Print help (see more with \'--help\')'
