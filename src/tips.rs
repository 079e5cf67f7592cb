//! What a usage error suggests. clap's tips go by the look of a word, and some mislead: `qctl
//! unpause` got `pause` (the opposite), `list` got `limit`, `--max-retries -1` got "use '--
//! -1'", `active delete Q --all` got "use '-- --all'". Here the words people type for what
//! qctl does (unpause, requeue, ls, rm, retry ...) name the commands they mean; a look-alike
//! is kept only when it is a slip of the keyboard; a negative number after an option says
//! what the option takes; an option of another command says which commands have it.

use std::ffi::OsString;

use clap::builder::StyledStr;
use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Arg, Command};

/// Words people type, and the commands (paths under `qctl`, with options where they are the
/// point) they mean. Under a command with subcommands (`qctl dead rm`), the meanings under
/// it are kept when there are any.
const MEANINGS: &[(&[&str], &[&str])] = &[
    (
        &["unpause", "continue", "unfreeze", "unsuspend", "unhold"],
        &["resume"],
    ),
    (&["start"], &["resume", "consume"]),
    (&["stop", "suspend", "hold", "freeze", "halt"], &["pause"]),
    (
        &[
            "requeue",
            "retry",
            "redrive",
            "replay",
            "rerun",
            "resubmit",
            "reprocess",
            "redo",
            "revive",
            "restart",
        ],
        &["dead requeue", "scheduled run-now"],
    ),
    (
        &["list", "ls", "ll"],
        &["stats", "dead list", "scheduled list", "active list"],
    ),
    (
        &[
            "queues", "queue", "status", "info", "count", "counts", "overview", "summary", "stat",
            "size", "len", "length",
        ],
        &["stats"],
    ),
    (
        &["show", "get", "cat", "inspect", "view", "describe"],
        &["dead show", "scheduled show"],
    ),
    (&["peek", "head"], &["active list"]),
    (
        &["rm", "del", "delete", "remove", "drop", "erase"],
        &["dead delete", "scheduled delete", "active delete", "purge"],
    ),
    (
        &[
            "clear", "flush", "empty", "wipe", "truncate", "reset", "nuke", "destroy",
        ],
        &["purge"],
    ),
    (&["kill"], &["pause", "active delete"]),
    (
        &[
            "add",
            "push",
            "put",
            "submit",
            "send",
            "publish",
            "produce",
            "post",
            "new",
            "create",
            "insert",
            "queue-job",
        ],
        &["enqueue"],
    ),
    (
        &[
            "run",
            "work",
            "worker",
            "process",
            "exec",
            "execute",
            "subscribe",
            "handle",
        ],
        &["consume", "scheduled run-now"],
    ),
    (&["drain"], &["consume --drain"]),
    (&["workers", "clients", "processes", "who"], &["consumers"]),
    (
        &[
            "running",
            "reserved",
            "processing",
            "busy",
            "flight",
            "in-flight",
        ],
        &["inflight"],
    ),
    (
        &[
            "failed",
            "failures",
            "errors",
            "error",
            "dlq",
            "deadletter",
            "graveyard",
            "died",
        ],
        &["dead list", "dead groups"],
    ),
    (
        &["delayed", "later", "retries", "retrying", "future", "due"],
        &["scheduled list"],
    ),
    (
        &["ready", "pending", "queued", "waiting", "backlog", "jobs"],
        &["active list"],
    ),
    (
        &["logs", "log", "follow", "events", "watch", "monitor"],
        &["tail", "top", "stats --watch"],
    ),
    (&["history"], &["stats --history"]),
    (
        &["health", "healthcheck", "nagios", "alert", "alerts", "ping"],
        &["check", "doctor"],
    ),
    (
        &[
            "fix",
            "repair",
            "fsck",
            "diagnose",
            "verify",
            "lint",
            "check-queue",
        ],
        &["doctor"],
    ),
    (&["dump", "backup", "save"], &["export", "dead export"]),
    (&["restore", "load"], &["import"]),
    (
        &["rename", "migrate", "copy", "cp", "mv", "transfer"],
        &["move"],
    ),
    (
        &["throttle", "ratelimit", "rate", "concurrency", "cap"],
        &["limit"],
    ),
    (&["completion", "complete"], &["completions"]),
    (&["manual", "docs", "doc"], &["man"]),
    (&["orphan", "recover", "reclaim", "rescue"], &["orphans"]),
    (&["metric", "prometheus", "exporter"], &["metrics"]),
    (
        &["group", "cluster-failures", "causes"],
        &["dead groups", "scheduled groups"],
    ),
    (&["now", "promote", "trigger"], &["scheduled run-now"]),
];

/// What an option of another command means here, where it has a word more to say.
const ELSEWHERE: &[(&str, &str, &str)] = &[(
    "active delete",
    "all",
    "it deletes the ready jobs whose ids it is given (qctl active list QUEUE shows them); \
     qctl purge QUEUE deletes a whole queue, jobs in every state",
)];

/// What a flag's values mean where a negative number is a guess at one of them.
const NEGATIVE: &[(&str, &str)] = &[
    (
        "max-retries",
        "--max-retries 0: no retry, a job runs once; there is no unlimited, a job that keeps \
         failing goes dead after N + 1 runs",
    ),
    (
        "max-jobs",
        "without --max-jobs a consumer runs until it is stopped",
    ),
    (
        "since",
        "an age is written without '-': --since 2h is two hours ago (+2h: two hours from now)",
    ),
    (
        "until",
        "an age is written without '-': --until 2h is two hours ago (+2h: two hours from now)",
    ),
];

/// Parses `args` (the program's name first) into matches of `cmd`, with the tips of a
/// usage error made right.
pub fn parse(cmd: Command, args: Vec<OsString>) -> Result<clap::ArgMatches, clap::Error> {
    let mut cmd = cmd;
    let err = match cmd.try_get_matches_from_mut(args.clone()) {
        Ok(m) => return Ok(m),
        Err(e) => e,
    };
    let words: Vec<String> = args
        .iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    Err(improve(&cmd, &words, err))
}

/// `err` with clap's tips replaced where they mislead.
fn improve(root: &Command, args: &[String], mut err: clap::Error) -> clap::Error {
    match err.kind() {
        ErrorKind::InvalidSubcommand => {
            let Some(ContextValue::String(word)) = err.get(ContextKind::InvalidSubcommand) else {
                return err;
            };
            let word = word.clone();
            let (path, _) = context(root, args, &word);
            let tips = meant(
                root,
                &path,
                &word,
                err.get(ContextKind::SuggestedSubcommand),
            );
            err.remove(ContextKind::SuggestedSubcommand);
            err.remove(ContextKind::Suggested);
            match tips {
                Meant::Commands(lines) if !lines.is_empty() => {
                    err.insert(ContextKind::Suggested, ContextValue::StyledStrs(lines));
                }
                Meant::Commands(_) => {}
                Meant::Similar(kept) => {
                    err.insert(
                        ContextKind::SuggestedSubcommand,
                        ContextValue::Strings(kept),
                    );
                }
            }
            err
        }
        ErrorKind::UnknownArgument => {
            let Some(ContextValue::String(arg)) = err.get(ContextKind::InvalidArg) else {
                return err;
            };
            let arg = arg.clone();
            if looks_negative(&arg) {
                if let Some(better) = negative(root, args, &arg) {
                    return better;
                }
                return err;
            }
            if let Some(name) = arg.strip_prefix("--") {
                let name = name.split('=').next().unwrap_or(name).to_string();
                let (path, cmd) = context(root, args, &arg);
                if let Some(lines) = elsewhere(root, &path, cmd, &name) {
                    err.remove(ContextKind::Suggested);
                    err.remove(ContextKind::SuggestedArg);
                    err.insert(ContextKind::Suggested, ContextValue::StyledStrs(lines));
                }
            }
            err
        }
        _ => err,
    }
}

/// The command `args` reached before `stop` (the word clap stopped at), as its path of
/// names under the root, and that command.
fn context<'a>(root: &'a Command, args: &[String], stop: &str) -> (Vec<String>, &'a Command) {
    let mut cmd = root;
    let mut path = Vec::new();
    let mut words = args.iter().skip(1);
    while let Some(word) = words.next() {
        if word == stop || word == "--" {
            break;
        }
        if word.starts_with('-') && word.len() > 1 {
            if !word.contains('=') && option(cmd, word).is_some_and(takes_value) {
                words.next();
            }
            continue;
        }
        if let Some(sub) = cmd.find_subcommand(word) {
            path.push(sub.get_name().to_string());
            cmd = sub;
        }
    }
    (path, cmd)
}

/// The option `word` (`--name`, `-c`) names in `cmd`.
fn option<'a>(cmd: &'a Command, word: &str) -> Option<&'a Arg> {
    if let Some(long) = word.strip_prefix("--") {
        let long = long.split('=').next().unwrap_or(long);
        cmd.get_arguments().find(|a| a.get_long() == Some(long))
    } else {
        let short = word.strip_prefix('-')?.chars().next()?;
        cmd.get_arguments().find(|a| a.get_short() == Some(short))
    }
}

fn takes_value(arg: &Arg) -> bool {
    arg.get_action().takes_values()
}

/// `-1`, `-0.5`, `-2h`: a negative number or age, which clap takes for an option.
fn looks_negative(arg: &str) -> bool {
    arg.strip_prefix('-')
        .and_then(|rest| rest.chars().next())
        .is_some_and(|c| c.is_ascii_digit() || c == '.')
}

/// The command at `path` (names under the root).
fn find<'a>(root: &'a Command, path: &[&str]) -> Option<&'a Command> {
    path.iter()
        .try_fold(root, |cmd, name| cmd.find_subcommand(name))
}

/// Every command under `cmd` (itself excluded) with its path.
fn every(cmd: &Command, path: Vec<String>, out: &mut Vec<(Vec<String>, Command)>) {
    for sub in cmd.get_subcommands() {
        let mut p = path.clone();
        p.push(sub.get_name().to_string());
        out.push((p.clone(), sub.clone()));
        every(sub, p, out);
    }
}

enum Meant {
    /// Tip lines naming commands.
    Commands(Vec<StyledStr>),
    /// clap's look-alikes that are slips of the keyboard.
    Similar(Vec<String>),
}

/// What an unknown command word under `parent` may mean: the commands it names (by the table
/// of [`MEANINGS`], or as the name of a command elsewhere), else those of clap's look-alikes
/// that are a slip of the keyboard away and not its opposite.
fn meant(root: &Command, parent: &[String], word: &str, similar: Option<&ContextValue>) -> Meant {
    let lower = word.to_ascii_lowercase();
    let mut targets: Vec<String> = MEANINGS
        .iter()
        .filter(|(words, _)| words.contains(&lower.as_str()))
        .flat_map(|(_, targets)| targets.iter().map(|t| t.to_string()))
        .collect();
    let mut all = Vec::new();
    every(root, Vec::new(), &mut all);
    for (path, _) in &all {
        if path.last().is_some_and(|n| *n == lower) && path != parent {
            targets.push(path.join(" "));
        }
    }
    let mut seen = std::collections::HashSet::new();
    targets.retain(|t| seen.insert(t.clone()));
    // Under `dead`, `qctl dead rm` means `dead delete`, not `active delete`.
    if !parent.is_empty() {
        let prefix = format!("{} ", parent.join(" "));
        let under: Vec<String> = targets
            .iter()
            .filter(|t| t.starts_with(&prefix))
            .cloned()
            .collect();
        if !under.is_empty() {
            targets = under;
        }
    }
    targets.retain(|t| {
        let words: Vec<&str> = t.split(' ').take_while(|w| !w.starts_with('-')).collect();
        find(root, &words).is_some()
    });
    if !targets.is_empty() {
        return Meant::Commands(lines(root, &targets));
    }
    let kept = match similar {
        Some(ContextValue::String(s)) => vec![s.clone()],
        Some(ContextValue::Strings(s)) => s.clone(),
        _ => Vec::new(),
    }
    .into_iter()
    .filter(|s| slip(&lower, s))
    .collect::<Vec<_>>();
    if kept.is_empty() {
        Meant::Commands(Vec::new())
    } else {
        Meant::Similar(kept)
    }
}

/// Whether `typed` is a slip of the keyboard away from `name`: a letter or two (one for short
/// words) added, dropped, changed or swapped, or a start of it; never a word that only adds or
/// drops a prefix such as un- or de- (`unpause` is not `pause`).
fn slip(typed: &str, name: &str) -> bool {
    for prefix in ["un", "de", "dis", "re", "no", "non", "en", "in"] {
        if typed.strip_prefix(prefix) == Some(name) || name.strip_prefix(prefix) == Some(typed) {
            return false;
        }
    }
    if typed.len() >= 3 && name.starts_with(typed) {
        return true;
    }
    let limit = if typed.chars().count() <= 4 { 1 } else { 2 };
    strsim::damerau_levenshtein(typed, name) <= limit
}

/// One tip line per command, with the start of its summary: `qctl dead list  List dead
/// jobs, newest first`.
fn lines(root: &Command, targets: &[String]) -> Vec<StyledStr> {
    let name = root.get_name();
    let width = targets.iter().map(|t| t.len()).max().unwrap_or(0);
    // Within 80 columns: `  tip: qctl ` and two spaces before the summary.
    let room = 78usize.saturating_sub(7 + name.len() + 1 + width + 2);
    targets
        .iter()
        .map(|t| {
            let words: Vec<&str> = t.split(' ').take_while(|w| !w.starts_with('-')).collect();
            let about = find(root, &words)
                .and_then(|c| c.get_about())
                .map(|a| first_clause(&a.to_string(), room))
                .unwrap_or_default();
            StyledStr::from(format!("{name} {t:<width$}  {about}"))
        })
        .collect()
}

/// The start of a command's summary, up to its first colon, semicolon or parenthesis, in at
/// most `room` characters (cut after a word).
fn first_clause(about: &str, room: usize) -> String {
    let end = [": ", "; ", " ("]
        .iter()
        .filter_map(|p| about.find(p))
        .min()
        .unwrap_or(about.len());
    let clause = about[..end].trim();
    if clause.chars().count() <= room {
        return clause.to_string();
    }
    let mut kept = String::new();
    for word in clause.split(' ') {
        if kept.chars().count() + word.chars().count() + 2 > room {
            break;
        }
        if !kept.is_empty() {
            kept.push(' ');
        }
        kept.push_str(word);
    }
    format!("{kept}…")
}

/// A tip of several lines, each within 80 columns under `  tip: `.
fn tip(text: &str) -> StyledStr {
    StyledStr::from(crate::output::wrap(text, 71, usize::MAX).join("\n       "))
}

/// For an option the command at `path` does not have, but other commands do: which ones,
/// and what this one takes instead where that has a word more to say.
fn elsewhere(root: &Command, path: &[String], cmd: &Command, long: &str) -> Option<Vec<StyledStr>> {
    if cmd.get_arguments().any(|a| a.get_long() == Some(long)) {
        return None;
    }
    let mut all = Vec::new();
    every(root, Vec::new(), &mut all);
    let having: Vec<String> = all
        .iter()
        .filter(|(p, c)| {
            c.get_subcommands().next().is_none()
                && c.get_arguments()
                    .any(|a| a.get_long() == Some(long) && !a.is_global_set())
                && p != path
        })
        .map(|(p, _)| p.join(" "))
        .collect();
    if having.is_empty() {
        return None;
    }
    let here = format!("{} {}", root.get_name(), path.join(" "));
    let verb = if having.len() == 1 { "has" } else { "have" };
    let mut tips = vec![tip(&format!(
        "'{here}' has no --{long}; {} {verb} it",
        list(&having)
    ))];
    let at = path.join(" ");
    for (command, option, note) in ELSEWHERE {
        if *command == at && *option == long {
            tips.push(tip(note));
        }
    }
    Some(tips)
}

/// `'a'`, `'a' and 'b'`, `'a', 'b' and 'c'`.
fn list(paths: &[String]) -> String {
    let named: Vec<String> = paths.iter().map(|p| format!("'{p}'")).collect();
    match named.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The error for a negative number given to an option: the option's own error for that
/// value, with what the option takes. None when the word before it is no option that takes
/// a value.
fn negative(root: &Command, args: &[String], arg: &str) -> Option<clap::Error> {
    let at = args.iter().position(|a| a.starts_with(arg))?;
    let flag = args.get(at.checked_sub(1)?)?;
    let (_, cmd) = context(root, args, flag);
    let option = option(cmd, flag).filter(|a| takes_value(a))?;
    let name = match option.get_long() {
        Some(long) => format!("--{long}"),
        None => format!("-{}", option.get_short()?),
    };
    // The same command line with the value joined to its option, as `--name=-1`.
    let mut joined: Vec<String> = args[..at - 1].to_vec();
    joined.push(format!("{name}={}", args[at]));
    joined.extend(args[at + 1..].iter().cloned());
    let mut cmd_again = root.clone();
    let mut err = match cmd_again.try_get_matches_from_mut(&joined) {
        // Taken with `=`: a value that starts with '-' is written that way.
        Ok(_) => {
            let mut err = clap::Error::new(ErrorKind::ValueValidation).with_cmd(cmd);
            let shown = option
                .get_value_names()
                .and_then(|v| v.first())
                .map_or(name.clone(), |v| format!("{name} <{v}>"));
            err.insert(ContextKind::InvalidArg, ContextValue::String(shown));
            err.insert(
                ContextKind::InvalidValue,
                ContextValue::String(args[at].clone()),
            );
            err.insert(
                ContextKind::Suggested,
                ContextValue::StyledStrs(vec![tip(&format!(
                    "a value that starts with '-' is joined to its option: {name}={}",
                    args[at]
                ))]),
            );
            return Some(err);
        }
        Err(e) if e.kind() == ErrorKind::ValueValidation => e,
        Err(_) => return None,
    };
    let mut tips = Vec::new();
    // Whether the option takes `text`, asked of the whole command line again.
    let parses = |text: &str| {
        let mut again = joined.clone();
        again[at - 1] = format!("{name}={text}");
        match root.clone().try_get_matches_from_mut(&again) {
            Err(e) if e.kind() == ErrorKind::ValueValidation => !matches!(
                e.get(ContextKind::InvalidArg),
                Some(ContextValue::String(a)) if a.starts_with(&name)
            ),
            _ => true,
        }
    };
    if let Some(takes) = takes(option, parses) {
        tips.push(tip(&format!("{name} takes {takes}")));
    }
    if let Some(long) = option.get_long() {
        for (flag, note) in NEGATIVE {
            if *flag == long {
                tips.push(tip(note));
            }
        }
    }
    if !tips.is_empty() {
        err.insert(ContextKind::Suggested, ContextValue::StyledStrs(tips));
    }
    Some(err)
}

/// What an option's values are, by the name of its value (N, DUR, TIME, R, RATE): for N,
/// the least it takes, found by asking `parses`.
fn takes(option: &Arg, parses: impl Fn(&str) -> bool) -> Option<String> {
    let value = option.get_value_names()?.first()?.to_string();
    Some(match value.as_str() {
        "N" if parses("0") => "a whole number, 0 or more".into(),
        "N" => "a whole number, 1 or more".into(),
        "DUR" if parses("0s") => "a duration such as 0s, 90s, 10m or 2h; none is negative".into(),
        "DUR" => "a duration such as 90s, 10m or 2h, more than 0".into(),
        "TIME" => "a time: RFC 3339, unix seconds, or an age such as 2h".into(),
        "R" => "a fraction from 0 to 1 (0.05) or a percentage (5%)".into(),
        "RATE" => "a rate such as 100/s, 30/m or 500/h".into(),
        _ => return None,
    })
}
