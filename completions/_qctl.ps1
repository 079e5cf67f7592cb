
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'qctl' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'qctl'
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
        'qctl' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('enqueue', 'enqueue', [CompletionResultType]::ParameterValue, 'Add jobs to a queue')
            [CompletionResult]::new('consume', 'consume', [CompletionResultType]::ParameterValue, 'Run a command for every job of a queue: a CurlyQ-compatible consumer')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Count what each queue holds: active, scheduled, in flight, dead, consumers, paused')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'Serve the queues'' metrics to Prometheus over HTTP (GET /metrics), until Ctrl-C')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check queues against thresholds, for cron, CI and monitoring systems (Nagios, Icinga, Sensu, Zabbix)')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'A live full-screen view of every queue: counts, rates, consumers, dead jobs')
            [CompletionResult]::new('dead', 'dead', [CompletionResultType]::ParameterValue, 'Look at and repair dead jobs (jobs that ran out of retries)')
            [CompletionResult]::new('scheduled', 'scheduled', [CompletionResultType]::ParameterValue, 'Look at and change scheduled jobs (delayed jobs and retries)')
            [CompletionResult]::new('active', 'active', [CompletionResultType]::ParameterValue, 'Look at and delete jobs that are ready to run')
            [CompletionResult]::new('tail', 'tail', [CompletionResultType]::ParameterValue, 'Follow what happens to queues until stopped (Ctrl-C): jobs killed and retried with their reasons, consumers joining, leaving, expiring and recovered, pause and resume, and a line per interval with the counts')
            [CompletionResult]::new('inflight', 'inflight', [CompletionResultType]::ParameterValue, 'List the jobs in flight: reserved by a consumer, running or about to')
            [CompletionResult]::new('consumers', 'consumers', [CompletionResultType]::ParameterValue, 'List the consumers of a queue: who runs them, where, their heartbeat and jobs in flight')
            [CompletionResult]::new('orphans', 'orphans', [CompletionResultType]::ParameterValue, 'Return the in-flight jobs of expired consumers to the queue')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop qctl consumers from reserving new jobs of a queue (running jobs finish)')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Let qctl consumers reserve jobs of a paused queue again')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Delete every key of a queue: jobs in every state, consumers, and qctl''s own keys')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check a queue''s server, the user''s rights and the queue''s integrity, with fixes')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to standard output')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page qctl.1, or write every page to a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;enqueue' {
            [CompletionResult]::new('--file', '--file', [CompletionResultType]::ParameterName, 'Read the job''s data (or, with --lines/--jsonl, the jobs) from this file')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'The job''s id (default: a new UUID v4). When the id is taken nothing changes and qctl exits with code 5')
            [CompletionResult]::new('--in', '--in', [CompletionResultType]::ParameterName, 'Run the job after this delay: 90s, 10m, 2h, 3d, 1h30m')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'Run the job at this time: RFC 3339 (2026-01-02T15:04:05Z) or unix seconds. A time in the past runs at once')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--lines', '--lines', [CompletionResultType]::ParameterName, 'Every input line is the data of one job (without its newline)')
            [CompletionResult]::new('--jsonl', '--jsonl', [CompletionResultType]::ParameterName, 'Every input line is a JSON object {"id"?, "data" | "data_b64", "at"?, "attempt"?}')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;consume' {
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue''s name, for names that start with ''-'' (`--queue=-jobs`)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'How many handlers run at once [default: the number of CPUs]')
            [CompletionResult]::new('--concurrency', '--concurrency', [CompletionResultType]::ParameterName, 'How many handlers run at once [default: the number of CPUs]')
            [CompletionResult]::new('--buffer', '--buffer', [CompletionResultType]::ParameterName, 'How many reserved jobs may wait locally for a free handler [default: about 20 ms of work, measured as jobs run: --concurrency at least, 1000 at most]')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop a handler that runs longer than this (SIGTERM to its process group, then SIGKILL after --kill-after); the run counts as failed with reason "timeout"')
            [CompletionResult]::new('--kill-after', '--kill-after', [CompletionResultType]::ParameterName, 'Time between SIGTERM and SIGKILL when a handler is stopped')
            [CompletionResult]::new('--max-retries', '--max-retries', [CompletionResultType]::ParameterName, 'Retries after the first failure; a job runs at most this + 1 times, then goes dead')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'The longest wait before a retry (the wait doubles with each failure)')
            [CompletionResult]::new('--heartbeat', '--heartbeat', [CompletionResultType]::ParameterName, 'How often this consumer renews its heartbeat')
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'Another consumer whose heartbeat is older than this is dead and its jobs are recovered. Keep it at 2m or more beside Go CurlyQ consumers (they beat every 60s)')
            [CompletionResult]::new('--poll-interval', '--poll-interval', [CompletionResultType]::ParameterName, 'The longest an idle consumer waits for a wake-up before it looks again')
            [CompletionResult]::new('--shutdown-grace', '--shutdown-grace', [CompletionResultType]::ParameterName, 'On SIGINT/SIGTERM, how long running handlers may finish before they are stopped and their jobs returned to the queue')
            [CompletionResult]::new('--max-jobs', '--max-jobs', [CompletionResultType]::ParameterName, 'Exit after this many jobs; exit code 7 if any job failed (with --drain: ended dead), 9 with --drain when it stopped with jobs left')
            [CompletionResult]::new('--replace', '--replace', [CompletionResultType]::ParameterName, 'Replace STR in ARGS by the job''s data (like xargs -I); no shell is involved')
            [CompletionResult]::new('--pipe-depth', '--pipe-depth', [CompletionResultType]::ParameterName, 'With --pipe: how many jobs may be outstanding per handler (answers matched by id) [default: 1]')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--drain', '--drain', [CompletionResultType]::ParameterName, 'Run every job that can run, then exit: when nothing is ready, nothing runs here or at other consumers, and no retry of a job that failed here is pending (it waits for them). Exit 0 when every job ended done, 7 when some ended dead, 8 when the queue is paused with jobs ready (see the README''s exit codes)')
            [CompletionResult]::new('--wait-scheduled', '--wait-scheduled', [CompletionResultType]::ParameterName, 'With --drain: also wait for the jobs producers scheduled for later, and run them')
            [CompletionResult]::new('--prefix', '--prefix', [CompletionResultType]::ParameterName, 'Put "[<job id>] " before every line a handler prints')
            [CompletionResult]::new('--pipe', '--pipe', [CompletionResultType]::ParameterName, 'Keep --concurrency long-lived copies of CMD and feed them jobs as JSON lines on stdin; each answers one JSON line per job on stdout (see the README)')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;stats' {
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Redraw every DUR (default 2s) with rates, until Ctrl-C')
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'A consumer whose heartbeat is older than this counts as expired')
            [CompletionResult]::new('--max-keys', '--max-keys', [CompletionResultType]::ParameterName, 'Stop discovering queues after scanning this many keys')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'Show what qctl consumers did over the last DUR, step by step: jobs done, failed, retried and killed, and run-time percentiles (kept for 7 days)')
            [CompletionResult]::new('--step', '--step', [CompletionResultType]::ParameterName, 'The length of one step of --history, in whole minutes [default: the step that shows DUR in at most 24 rows]')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--prometheus', '--prometheus', [CompletionResultType]::ParameterName, 'Print the counts in the Prometheus text format (as `qctl metrics` serves them)')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;metrics' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'The address to serve on (port 0: any free port, printed at start)')
            [CompletionResult]::new('--min-interval', '--min-interval', [CompletionResultType]::ParameterName, 'Read Redis at most once per DUR; scrapes in between get the last reading')
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'A consumer whose heartbeat is older than this counts as expired')
            [CompletionResult]::new('--max-keys', '--max-keys', [CompletionResultType]::ParameterName, 'Stop discovering queues after scanning this many keys')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;check' {
            [CompletionResult]::new('--dead-max', '--dead-max', [CompletionResultType]::ParameterName, 'CRITICAL when a queue has more than N dead jobs')
            [CompletionResult]::new('--warn-dead', '--warn-dead', [CompletionResultType]::ParameterName, 'WARNING when a queue has more than N dead jobs')
            [CompletionResult]::new('--ready-max', '--ready-max', [CompletionResultType]::ParameterName, 'CRITICAL when more than N jobs are ready to run (active and due scheduled)')
            [CompletionResult]::new('--warn-ready', '--warn-ready', [CompletionResultType]::ParameterName, 'WARNING when more than N jobs are ready to run')
            [CompletionResult]::new('--overdue-max', '--overdue-max', [CompletionResultType]::ParameterName, 'CRITICAL when a due scheduled job has waited longer than DUR to be moved to active (no consumer promotes them)')
            [CompletionResult]::new('--warn-overdue', '--warn-overdue', [CompletionResultType]::ParameterName, 'WARNING when a due scheduled job has waited longer than DUR')
            [CompletionResult]::new('--min-consumers', '--min-consumers', [CompletionResultType]::ParameterName, 'CRITICAL when fewer than N consumers are alive')
            [CompletionResult]::new('--warn-min-consumers', '--warn-min-consumers', [CompletionResultType]::ParameterName, 'WARNING when fewer than N consumers are alive')
            [CompletionResult]::new('--failure-rate-max', '--failure-rate-max', [CompletionResultType]::ParameterName, 'CRITICAL when more than R (0 to 1) of the runs of qctl consumers failed within --window (from the history qctl consumers keep)')
            [CompletionResult]::new('--warn-failure-rate', '--warn-failure-rate', [CompletionResultType]::ParameterName, 'WARNING when more than R (0 to 1) of the runs failed within --window')
            [CompletionResult]::new('--window', '--window', [CompletionResultType]::ParameterName, 'The span the failure rate is measured over (whole minutes)')
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'A consumer whose heartbeat is older than this counts as expired')
            [CompletionResult]::new('--max-keys', '--max-keys', [CompletionResultType]::ParameterName, 'Stop discovering queues after scanning this many keys')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--stale-consumers', '--stale-consumers', [CompletionResultType]::ParameterName, 'CRITICAL when a consumer''s heartbeat is older than --orphan-after (it died and its jobs wait for `qctl orphans` or another consumer)')
            [CompletionResult]::new('--warn-stale-consumers', '--warn-stale-consumers', [CompletionResultType]::ParameterName, 'WARNING when a consumer''s heartbeat is older than --orphan-after')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;top' {
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Refresh every DUR')
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'A consumer whose heartbeat is older than this counts as expired')
            [CompletionResult]::new('--max-keys', '--max-keys', [CompletionResultType]::ParameterName, 'Stop discovering queues after scanning this many keys')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;dead' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List dead jobs, newest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one dead job: its record and why it failed')
            [CompletionResult]::new('requeue', 'requeue', [CompletionResultType]::ParameterValue, 'Move dead jobs back to the queue (Attempt reset to 0, failure cleared)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete dead jobs with their records')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Group dead jobs by the cause of their failure, largest group first')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;dead;list' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many jobs to show')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many jobs (the next page''s offset is printed)')
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--jsonl', '--jsonl', [CompletionResultType]::ParameterName, 'One JSON object per line, with full data')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;dead;show' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Write only the job''s data bytes to standard output')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;dead;requeue' {
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every job (narrowed by the filters, if any)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--keep-attempts', '--keep-attempts', [CompletionResultType]::ParameterName, 'Keep each job''s Attempt instead of resetting it')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;dead;delete' {
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('--older-than', '--older-than', [CompletionResultType]::ParameterName, 'Only jobs that died longer ago than this (e.g. 30d)')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every job (narrowed by the filters, if any)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;dead;export' {
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;dead;groups' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many groups to show, largest first (0: every group)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;dead;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List dead jobs, newest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one dead job: its record and why it failed')
            [CompletionResult]::new('requeue', 'requeue', [CompletionResultType]::ParameterValue, 'Move dead jobs back to the queue (Attempt reset to 0, failure cleared)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete dead jobs with their records')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Group dead jobs by the cause of their failure, largest group first')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;dead;help;list' {
            break
        }
        'qctl;dead;help;show' {
            break
        }
        'qctl;dead;help;requeue' {
            break
        }
        'qctl;dead;help;delete' {
            break
        }
        'qctl;dead;help;export' {
            break
        }
        'qctl;dead;help;groups' {
            break
        }
        'qctl;dead;help;help' {
            break
        }
        'qctl;scheduled' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List scheduled jobs, soonest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one scheduled job')
            [CompletionResult]::new('run-now', 'run-now', [CompletionResultType]::ParameterValue, 'Make scheduled jobs ready now')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete scheduled jobs with their records')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Group retries by the cause of their last failure, largest group first')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;scheduled;list' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many jobs to show')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many jobs (the next page''s offset is printed)')
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--jsonl', '--jsonl', [CompletionResultType]::ParameterName, 'One JSON object per line, with full data')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;scheduled;show' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'Write only the job''s data bytes to standard output')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;scheduled;run-now' {
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every job (narrowed by the filters, if any)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;scheduled;delete' {
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every job (narrowed by the filters, if any)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;scheduled;groups' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many groups to show, largest first (0: every group)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;scheduled;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List scheduled jobs, soonest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one scheduled job')
            [CompletionResult]::new('run-now', 'run-now', [CompletionResultType]::ParameterValue, 'Make scheduled jobs ready now')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete scheduled jobs with their records')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Group retries by the cause of their last failure, largest group first')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;scheduled;help;list' {
            break
        }
        'qctl;scheduled;help;show' {
            break
        }
        'qctl;scheduled;help;run-now' {
            break
        }
        'qctl;scheduled;help;delete' {
            break
        }
        'qctl;scheduled;help;groups' {
            break
        }
        'qctl;scheduled;help;help' {
            break
        }
        'qctl;active' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show the jobs at the head of the queue (next to run first); reserves nothing')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete ready jobs with their records')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;active;list' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many jobs to show')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many jobs (the next page''s offset is printed)')
            [CompletionResult]::new('--grep', '--grep', [CompletionResultType]::ParameterName, 'Only jobs whose data contains TEXT (exactly, bytes). The recorded failure is searched with --reason')
            [CompletionResult]::new('--reason', '--reason', [CompletionResultType]::ParameterName, 'Only jobs whose recorded failure contains TEXT in its reason or in the tail of its stderr, ignoring case. A job without a failure record (one a Go CurlyQ consumer moved) never matches: select those with --group none')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only jobs of one failure group: a fingerprint that `dead groups` or `scheduled groups` prints, or `none` for jobs without a failure record')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)')
            [CompletionResult]::new('--min-attempts', '--min-attempts', [CompletionResultType]::ParameterName, 'Only jobs that failed at least N times')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--jsonl', '--jsonl', [CompletionResultType]::ParameterName, 'One JSON object per line, with full data')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;active;delete' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;active;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show the jobs at the head of the queue (next to run first); reserves nothing')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete ready jobs with their records')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;active;help;list' {
            break
        }
        'qctl;active;help;delete' {
            break
        }
        'qctl;active;help;help' {
            break
        }
        'qctl;tail' {
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Start from the recent past: what happened since TIME (RFC 3339, unix seconds, or an age such as 10m) to dead jobs and retries is shown first')
            [CompletionResult]::new('--interval', '--interval', [CompletionResultType]::ParameterName, 'Print a line with each queue''s counts every DUR')
            [CompletionResult]::new('--poll', '--poll', [CompletionResultType]::ParameterName, 'Look for changes every DUR')
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'A consumer whose heartbeat is older than this counts as expired')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--failures', '--failures', [CompletionResultType]::ParameterName, 'Only failures: jobs killed and retries scheduled')
            [CompletionResult]::new('--no-follow', '--no-follow', [CompletionResultType]::ParameterName, 'Print what happened (since --since) and exit instead of following')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;inflight' {
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many jobs to show')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many jobs (the next page''s offset is printed)')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--jsonl', '--jsonl', [CompletionResultType]::ParameterName, 'One JSON object per line, with full data')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;consumers' {
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'A consumer whose heartbeat is older than this counts as expired')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;orphans' {
            [CompletionResult]::new('--orphan-after', '--orphan-after', [CompletionResultType]::ParameterName, 'A consumer whose heartbeat is older than this is expired. Below the default, live consumers may look expired: qctl then names them and asks')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;pause' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;resume' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;purge' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;doctor' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--fix', '--fix', [CompletionResultType]::ParameterName, 'Repair what needs no guessing: put records whose id is in no list or set back at the tail of NAME:active, and remove ids without a record from their keys. Each id is printed; asks first (--yes, --dry-run)')
            [CompletionResult]::new('-y', '-y', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Do it without asking')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done; change nothing')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;completions' {
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;man' {
            [CompletionResult]::new('--dir', '--dir', [CompletionResultType]::ParameterName, 'Write qctl.1 and the page of every subcommand into DIR (created if missing) and print the path of each page written')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--redis', '--redis', [CompletionResultType]::ParameterName, 'Redis URL: redis://[user@]host[:port][/db], rediss:// for TLS, redis+unix:///path or unix:///path for a socket. Falls back to $REDIS_URL, then redis://127.0.0.1:6379')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'ACL user name (overrides a user in the URL). The password comes from $QCTL_REDIS_PASSWORD or --password-file, never from the command line')
            [CompletionResult]::new('--password-file', '--password-file', [CompletionResultType]::ParameterName, 'Read the Redis password from FILE (its first line)')
            [CompletionResult]::new('--tls-ca-cert', '--tls-ca-cert', [CompletionResultType]::ParameterName, 'Verify the server with this CA certificate (PEM) instead of the system''s trust store')
            [CompletionResult]::new('--tls-cert', '--tls-cert', [CompletionResultType]::ParameterName, 'Client certificate (PEM), for servers with tls-auth-clients; needs --tls-key')
            [CompletionResult]::new('--tls-key', '--tls-key', [CompletionResultType]::ParameterName, 'The client certificate''s private key (PEM); needs --tls-cert')
            [CompletionResult]::new('--connect-timeout', '--connect-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a connection to Redis')
            [CompletionResult]::new('--response-timeout', '--response-timeout', [CompletionResultType]::ParameterName, 'How long to wait for Redis to answer a command')
            [CompletionResult]::new('--tls-insecure', '--tls-insecure', [CompletionResultType]::ParameterName, 'Do not verify the server''s TLS certificate (a warning says so)')
            [CompletionResult]::new('--cluster', '--cluster', [CompletionResultType]::ParameterName, 'The URL names a node of a Redis Cluster: commands go to the node owning each queue''s slot. Queue names need a hash tag, as in {mail}')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print results as JSON')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print only results: no progress, no summaries, no warnings')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print more detail about what is being done (repeat for more)')
            [CompletionResult]::new('--no-color', '--no-color', [CompletionResultType]::ParameterName, 'Never use colour (also: the NO_COLOR environment variable)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'qctl;help' {
            [CompletionResult]::new('enqueue', 'enqueue', [CompletionResultType]::ParameterValue, 'Add jobs to a queue')
            [CompletionResult]::new('consume', 'consume', [CompletionResultType]::ParameterValue, 'Run a command for every job of a queue: a CurlyQ-compatible consumer')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Count what each queue holds: active, scheduled, in flight, dead, consumers, paused')
            [CompletionResult]::new('metrics', 'metrics', [CompletionResultType]::ParameterValue, 'Serve the queues'' metrics to Prometheus over HTTP (GET /metrics), until Ctrl-C')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Check queues against thresholds, for cron, CI and monitoring systems (Nagios, Icinga, Sensu, Zabbix)')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'A live full-screen view of every queue: counts, rates, consumers, dead jobs')
            [CompletionResult]::new('dead', 'dead', [CompletionResultType]::ParameterValue, 'Look at and repair dead jobs (jobs that ran out of retries)')
            [CompletionResult]::new('scheduled', 'scheduled', [CompletionResultType]::ParameterValue, 'Look at and change scheduled jobs (delayed jobs and retries)')
            [CompletionResult]::new('active', 'active', [CompletionResultType]::ParameterValue, 'Look at and delete jobs that are ready to run')
            [CompletionResult]::new('tail', 'tail', [CompletionResultType]::ParameterValue, 'Follow what happens to queues until stopped (Ctrl-C): jobs killed and retried with their reasons, consumers joining, leaving, expiring and recovered, pause and resume, and a line per interval with the counts')
            [CompletionResult]::new('inflight', 'inflight', [CompletionResultType]::ParameterValue, 'List the jobs in flight: reserved by a consumer, running or about to')
            [CompletionResult]::new('consumers', 'consumers', [CompletionResultType]::ParameterValue, 'List the consumers of a queue: who runs them, where, their heartbeat and jobs in flight')
            [CompletionResult]::new('orphans', 'orphans', [CompletionResultType]::ParameterValue, 'Return the in-flight jobs of expired consumers to the queue')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Stop qctl consumers from reserving new jobs of a queue (running jobs finish)')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Let qctl consumers reserve jobs of a paused queue again')
            [CompletionResult]::new('purge', 'purge', [CompletionResultType]::ParameterValue, 'Delete every key of a queue: jobs in every state, consumers, and qctl''s own keys')
            [CompletionResult]::new('doctor', 'doctor', [CompletionResultType]::ParameterValue, 'Check a queue''s server, the user''s rights and the queue''s integrity, with fixes')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to standard output')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the manual page qctl.1, or write every page to a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'qctl;help;enqueue' {
            break
        }
        'qctl;help;consume' {
            break
        }
        'qctl;help;stats' {
            break
        }
        'qctl;help;metrics' {
            break
        }
        'qctl;help;check' {
            break
        }
        'qctl;help;top' {
            break
        }
        'qctl;help;dead' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List dead jobs, newest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one dead job: its record and why it failed')
            [CompletionResult]::new('requeue', 'requeue', [CompletionResultType]::ParameterValue, 'Move dead jobs back to the queue (Attempt reset to 0, failure cleared)')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete dead jobs with their records')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Group dead jobs by the cause of their failure, largest group first')
            break
        }
        'qctl;help;dead;list' {
            break
        }
        'qctl;help;dead;show' {
            break
        }
        'qctl;help;dead;requeue' {
            break
        }
        'qctl;help;dead;delete' {
            break
        }
        'qctl;help;dead;export' {
            break
        }
        'qctl;help;dead;groups' {
            break
        }
        'qctl;help;scheduled' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List scheduled jobs, soonest first')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show one scheduled job')
            [CompletionResult]::new('run-now', 'run-now', [CompletionResultType]::ParameterValue, 'Make scheduled jobs ready now')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete scheduled jobs with their records')
            [CompletionResult]::new('groups', 'groups', [CompletionResultType]::ParameterValue, 'Group retries by the cause of their last failure, largest group first')
            break
        }
        'qctl;help;scheduled;list' {
            break
        }
        'qctl;help;scheduled;show' {
            break
        }
        'qctl;help;scheduled;run-now' {
            break
        }
        'qctl;help;scheduled;delete' {
            break
        }
        'qctl;help;scheduled;groups' {
            break
        }
        'qctl;help;active' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Show the jobs at the head of the queue (next to run first); reserves nothing')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete ready jobs with their records')
            break
        }
        'qctl;help;active;list' {
            break
        }
        'qctl;help;active;delete' {
            break
        }
        'qctl;help;tail' {
            break
        }
        'qctl;help;inflight' {
            break
        }
        'qctl;help;consumers' {
            break
        }
        'qctl;help;orphans' {
            break
        }
        'qctl;help;pause' {
            break
        }
        'qctl;help;resume' {
            break
        }
        'qctl;help;purge' {
            break
        }
        'qctl;help;doctor' {
            break
        }
        'qctl;help;completions' {
            break
        }
        'qctl;help;man' {
            break
        }
        'qctl;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
