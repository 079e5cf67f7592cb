
use builtin;
use str;

set edit:completion:arg-completer[qctl] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'qctl'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'qctl'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand enqueue 'Add jobs to a queue'
            cand consume 'Run a command for every job of a queue: a CurlyQ-compatible consumer'
            cand stats 'Count what each queue holds: active, scheduled, in flight, dead, consumers, paused'
            cand dead 'Look at and repair dead jobs (jobs that ran out of retries)'
            cand scheduled 'Look at and change scheduled jobs (delayed jobs and retries)'
            cand active 'Look at and delete jobs that are ready to run'
            cand consumers 'List the consumers of a queue with their heartbeat age and jobs in flight'
            cand orphans 'Return the in-flight jobs of expired consumers to the queue'
            cand pause 'Stop qctl consumers from reserving new jobs of a queue (running jobs finish)'
            cand resume 'Let qctl consumers reserve jobs of a paused queue again'
            cand purge 'Delete every key of a queue: jobs in every state, consumers, and qctl''s own keys'
            cand completions 'Print a shell completion script to standard output'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;enqueue'= {
            cand --file 'Read the job''s data (or, with --lines/--jsonl, the jobs) from this file'
            cand --id 'The job''s id (default: a new UUID v4). When the id is taken nothing changes and qctl exits with code 5'
            cand --in 'Run the job after this delay: 90s, 10m, 2h, 3d, 1h30m'
            cand --at 'Run the job at this time: RFC 3339 (2026-01-02T15:04:05Z) or unix seconds. A time in the past runs at once'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --lines 'Every input line is the data of one job (without its newline)'
            cand --jsonl 'Every input line is a JSON object {"id"?, "data" | "data_b64", "at"?, "attempt"?}'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;consume'= {
            cand --queue 'The queue''s name, for names that start with ''-'' (`--queue=-jobs`)'
            cand -c 'How many handlers run at once [default: the number of CPUs]'
            cand --concurrency 'How many handlers run at once [default: the number of CPUs]'
            cand --buffer 'How many reserved jobs may wait locally for a free handler [default: --concurrency]'
            cand --timeout 'Stop a handler that runs longer than this (SIGTERM to its process group, then SIGKILL after --kill-after); the run counts as failed with reason "timeout"'
            cand --kill-after 'Time between SIGTERM and SIGKILL when a handler is stopped'
            cand --max-retries 'Retries after the first failure; a job runs at most this + 1 times, then goes dead'
            cand --max-backoff 'The longest wait before a retry (the wait doubles with each failure)'
            cand --heartbeat 'How often this consumer renews its heartbeat'
            cand --orphan-after 'Another consumer whose heartbeat is older than this is dead and its jobs are recovered. Keep it at 2m or more beside Go CurlyQ consumers (they beat every 60s)'
            cand --poll-interval 'The longest an idle consumer waits for a wake-up before it looks again'
            cand --shutdown-grace 'On SIGINT/SIGTERM, how long running handlers may finish before they are stopped and their jobs returned to the queue'
            cand --max-jobs 'Exit after this many jobs; exit code 7 if any job failed'
            cand --replace 'Replace STR in ARGS by the job''s data (like xargs -I); no shell is involved'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --drain 'Exit when nothing is ready and nothing is running; exit code 7 if any job failed'
            cand --prefix 'Put "[<job id>] " before every line a handler prints'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;stats'= {
            cand --watch 'Redraw every DUR (default 2s) with rates, until Ctrl-C'
            cand --orphan-after 'A consumer whose heartbeat is older than this counts as expired'
            cand --max-keys 'Stop discovering queues after scanning this many keys'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;dead'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List dead jobs, newest first'
            cand show 'Show one dead job: its record and why it failed'
            cand requeue 'Move dead jobs back to the queue (Attempt reset to 0, failure cleared)'
            cand delete 'Delete dead jobs with their records'
            cand export 'Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;dead;list'= {
            cand --limit 'How many jobs to show'
            cand --offset 'Skip this many jobs (the next page''s offset is printed)'
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --jsonl 'One JSON object per line, with full data'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;dead;show'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --raw 'Write only the job''s data bytes to standard output'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;dead;requeue'= {
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --all 'Every job (narrowed by the filters, if any)'
            cand -y 'Do it without asking'
            cand --yes 'Do it without asking'
            cand --dry-run 'Show what would be done; change nothing'
            cand --keep-attempts 'Keep each job''s Attempt instead of resetting it'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;dead;delete'= {
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand --older-than 'Only jobs that died longer ago than this (e.g. 30d)'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --all 'Every job (narrowed by the filters, if any)'
            cand -y 'Do it without asking'
            cand --yes 'Do it without asking'
            cand --dry-run 'Show what would be done; change nothing'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;dead;export'= {
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;dead;help'= {
            cand list 'List dead jobs, newest first'
            cand show 'Show one dead job: its record and why it failed'
            cand requeue 'Move dead jobs back to the queue (Attempt reset to 0, failure cleared)'
            cand delete 'Delete dead jobs with their records'
            cand export 'Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;dead;help;list'= {
        }
        &'qctl;dead;help;show'= {
        }
        &'qctl;dead;help;requeue'= {
        }
        &'qctl;dead;help;delete'= {
        }
        &'qctl;dead;help;export'= {
        }
        &'qctl;dead;help;help'= {
        }
        &'qctl;scheduled'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'List scheduled jobs, soonest first'
            cand show 'Show one scheduled job'
            cand run-now 'Make scheduled jobs ready now'
            cand delete 'Delete scheduled jobs with their records'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;scheduled;list'= {
            cand --limit 'How many jobs to show'
            cand --offset 'Skip this many jobs (the next page''s offset is printed)'
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --jsonl 'One JSON object per line, with full data'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;scheduled;show'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --raw 'Write only the job''s data bytes to standard output'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;scheduled;run-now'= {
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --all 'Every job (narrowed by the filters, if any)'
            cand -y 'Do it without asking'
            cand --yes 'Do it without asking'
            cand --dry-run 'Show what would be done; change nothing'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;scheduled;delete'= {
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --all 'Every job (narrowed by the filters, if any)'
            cand -y 'Do it without asking'
            cand --yes 'Do it without asking'
            cand --dry-run 'Show what would be done; change nothing'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;scheduled;help'= {
            cand list 'List scheduled jobs, soonest first'
            cand show 'Show one scheduled job'
            cand run-now 'Make scheduled jobs ready now'
            cand delete 'Delete scheduled jobs with their records'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;scheduled;help;list'= {
        }
        &'qctl;scheduled;help;show'= {
        }
        &'qctl;scheduled;help;run-now'= {
        }
        &'qctl;scheduled;help;delete'= {
        }
        &'qctl;scheduled;help;help'= {
        }
        &'qctl;active'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand list 'Show the jobs at the head of the queue (next to run first); reserves nothing'
            cand delete 'Delete ready jobs with their records'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;active;list'= {
            cand --limit 'How many jobs to show'
            cand --offset 'Skip this many jobs (the next page''s offset is printed)'
            cand --grep 'Only jobs whose data contains TEXT'
            cand --since 'Only jobs at or after this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --until 'Only jobs at or before this time (RFC 3339, unix seconds, or an age such as 2h)'
            cand --min-attempts 'Only jobs that failed at least N times'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --jsonl 'One JSON object per line, with full data'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;active;delete'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand -y 'Do it without asking'
            cand --yes 'Do it without asking'
            cand --dry-run 'Show what would be done; change nothing'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;active;help'= {
            cand list 'Show the jobs at the head of the queue (next to run first); reserves nothing'
            cand delete 'Delete ready jobs with their records'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;active;help;list'= {
        }
        &'qctl;active;help;delete'= {
        }
        &'qctl;active;help;help'= {
        }
        &'qctl;consumers'= {
            cand --orphan-after 'A consumer whose heartbeat is older than this counts as expired'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;orphans'= {
            cand --orphan-after 'A consumer whose heartbeat is older than this is expired'
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --dry-run 'Show what would be recovered; change nothing'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;pause'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;resume'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;purge'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand -y 'Do it without asking'
            cand --yes 'Do it without asking'
            cand --dry-run 'Show what would be done; change nothing'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;completions'= {
            cand -u 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --redis 'Redis URL: redis://[user:password@]host[:port][/db], or rediss:// for TLS. Falls back to $REDIS_URL, then redis://127.0.0.1:6379'
            cand --connect-timeout 'How long to wait for a connection to Redis'
            cand --response-timeout 'How long to wait for Redis to answer a command'
            cand --json 'Print results as JSON'
            cand -q 'Print only results: no progress, no summaries, no warnings'
            cand --quiet 'Print only results: no progress, no summaries, no warnings'
            cand -v 'Print more detail about what is being done (repeat for more)'
            cand --verbose 'Print more detail about what is being done (repeat for more)'
            cand --no-color 'Never use colour (also: the NO_COLOR environment variable)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'qctl;help'= {
            cand enqueue 'Add jobs to a queue'
            cand consume 'Run a command for every job of a queue: a CurlyQ-compatible consumer'
            cand stats 'Count what each queue holds: active, scheduled, in flight, dead, consumers, paused'
            cand dead 'Look at and repair dead jobs (jobs that ran out of retries)'
            cand scheduled 'Look at and change scheduled jobs (delayed jobs and retries)'
            cand active 'Look at and delete jobs that are ready to run'
            cand consumers 'List the consumers of a queue with their heartbeat age and jobs in flight'
            cand orphans 'Return the in-flight jobs of expired consumers to the queue'
            cand pause 'Stop qctl consumers from reserving new jobs of a queue (running jobs finish)'
            cand resume 'Let qctl consumers reserve jobs of a paused queue again'
            cand purge 'Delete every key of a queue: jobs in every state, consumers, and qctl''s own keys'
            cand completions 'Print a shell completion script to standard output'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'qctl;help;enqueue'= {
        }
        &'qctl;help;consume'= {
        }
        &'qctl;help;stats'= {
        }
        &'qctl;help;dead'= {
            cand list 'List dead jobs, newest first'
            cand show 'Show one dead job: its record and why it failed'
            cand requeue 'Move dead jobs back to the queue (Attempt reset to 0, failure cleared)'
            cand delete 'Delete dead jobs with their records'
            cand export 'Write dead jobs as JSON lines that `qctl enqueue --jsonl` reads back'
        }
        &'qctl;help;dead;list'= {
        }
        &'qctl;help;dead;show'= {
        }
        &'qctl;help;dead;requeue'= {
        }
        &'qctl;help;dead;delete'= {
        }
        &'qctl;help;dead;export'= {
        }
        &'qctl;help;scheduled'= {
            cand list 'List scheduled jobs, soonest first'
            cand show 'Show one scheduled job'
            cand run-now 'Make scheduled jobs ready now'
            cand delete 'Delete scheduled jobs with their records'
        }
        &'qctl;help;scheduled;list'= {
        }
        &'qctl;help;scheduled;show'= {
        }
        &'qctl;help;scheduled;run-now'= {
        }
        &'qctl;help;scheduled;delete'= {
        }
        &'qctl;help;active'= {
            cand list 'Show the jobs at the head of the queue (next to run first); reserves nothing'
            cand delete 'Delete ready jobs with their records'
        }
        &'qctl;help;active;list'= {
        }
        &'qctl;help;active;delete'= {
        }
        &'qctl;help;consumers'= {
        }
        &'qctl;help;orphans'= {
        }
        &'qctl;help;pause'= {
        }
        &'qctl;help;resume'= {
        }
        &'qctl;help;purge'= {
        }
        &'qctl;help;completions'= {
        }
        &'qctl;help;help'= {
        }
    ]
    $completions[$command]
}
