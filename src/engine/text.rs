//! Words in messages: counts (`1,299,960`, `1 job`, `2 jobs`), spans, sizes and run times,
//! what an answer to a question means, control characters escaped and words quoted for a
//! shell. Pure text, no terminal code, so the engine, the handlers, the commands and the
//! views word things the same way; `output` shows them on the terminal.

/// `1,299,960`: a count in a message, with thousands separators.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// What a line typed at a yes/no question means, in any case: `y` or `yes` is yes; `n`,
/// `no` or nothing (Enter alone, the default) is no; anything else is None (ask again).
pub fn yes_or_no(answer: &str) -> Option<bool> {
    match answer.trim().to_lowercase().as_str() {
        "y" | "yes" => Some(true),
        "" | "n" | "no" => Some(false),
        _ => None,
    }
}

/// `1 failure`, `3 failures`, `1,000 jobs`: a count with its noun, plural as it needs. The
/// plural adds an `s`; a noun that does not (`entry`) takes [`agree`].
pub fn plural(n: u64, noun: &str) -> String {
    format!("{} {}", thousands(n), agree(n, noun, &format!("{noun}s")))
}

/// `one` for a count of 1, `many` for any other: a word that agrees with a count, such as a
/// verb (`is`/`are`) or an irregular noun (`entry`/`entries`).
pub fn agree<'a>(n: u64, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// `42s`, `4m`, `3h`, `12d`: a span of time in seconds, rounded to its largest unit (hours
/// up to two days).
pub fn span(secs: f64) -> String {
    let d = secs.abs().round();
    if d < 60.0 {
        format!("{d}s")
    } else if d < 3570.0 {
        format!("{}m", (d / 60.0).round())
    } else if d < 86400.0 * 2.0 {
        format!("{}h", (d / 3600.0).round())
    } else {
        format!("{}d", (d / 86400.0).round())
    }
}

/// `3m ago`, `in 5m`, rounded to the largest sensible unit.
pub fn relative(t: f64, now: f64) -> String {
    if t.is_nan() {
        return "at an invalid time".into();
    }
    if t.is_infinite() {
        return if t < 0.0 { "at -inf" } else { "at +inf" }.into();
    }
    let text = span(t - now);
    if t >= now {
        format!("in {text}")
    } else {
        format!("{text} ago")
    }
}

/// A running time: `42s`, `3m 05s`, `2h 10m`, `3d 4h`.
pub fn running(secs: f64) -> String {
    let s = secs.floor() as u64;
    match s {
        0..=59 => format!("{s}s"),
        60..=3599 => format!("{}m {:02}s", s / 60, s % 60),
        3600..=86399 => format!("{}h {:02}m", s / 3600, s % 3600 / 60),
        _ => format!("{}d {}h", s / 86400, s % 86400 / 3600),
    }
}

/// `512 MiB`, `2.54 MiB`, `900.5 KiB`, `12 bytes`: a size in messages, in the binary units
/// of Redis's own settings (`512mb` is 512 MiB); two decimals below 10, one above, so that
/// a size just over a limit does not read as the limit.
pub fn size(bytes: u64) -> String {
    const KIB: f64 = 1024.0;
    let n = bytes as f64;
    let (value, unit) = if n >= KIB * KIB * KIB {
        (n / (KIB * KIB * KIB), "GiB")
    } else if n >= KIB * KIB {
        (n / (KIB * KIB), "MiB")
    } else if n >= KIB {
        (n / KIB, "KiB")
    } else {
        return plural(bytes, "byte");
    };
    let text = if value < 10.0 {
        format!("{value:.2}")
    } else {
        format!("{value:.1}")
    };
    format!(
        "{} {unit}",
        text.trim_end_matches('0').trim_end_matches('.')
    )
}

/// A run time for a table: `850us`, `12ms`, `1.5s`, `2m05s`, `>1h`; `-` when unknown.
pub fn millis(ms: Option<f64>) -> String {
    match ms {
        None => "-".into(),
        Some(ms) if ms.is_infinite() => ">1h".into(),
        Some(ms) if ms < 1.0 => format!("{:.0}us", ms * 1000.0),
        Some(ms) if ms < 10.0 => format!("{ms:.1}ms"),
        Some(ms) if ms < 1000.0 => format!("{ms:.0}ms"),
        Some(ms) if ms < 60_000.0 => format!("{:.1}s", ms / 1000.0),
        Some(ms) => {
            let s = (ms / 1000.0).round() as u64;
            format!("{}m{:02}s", s / 60, s % 60)
        }
    }
}

/// A span for people, as the flags take it: whole days in days (`7d`, `3650d`; humantime
/// would write `7days` and, past a year, months that are not whole days), any other span as
/// humantime writes it (`1h 30m`, `5m`).
pub fn span_words(d: std::time::Duration) -> String {
    let secs = d.as_secs();
    if secs >= 86_400 && secs % 86_400 == 0 && d.subsec_nanos() == 0 {
        format!("{}d", secs / 86_400)
    } else {
        humantime::format_duration(d).to_string()
    }
}

/// Whether `c` is shown escaped wherever qctl shows text from a job, a queue or a
/// consumer: a control character, or one that changes the direction of the text around it
/// (bidi controls such as U+202E, which would make an id or a name read as another).
pub fn hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061c}' | '\u{200e}' | '\u{200f}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
}

/// Text for a table cell or a one-line message: control characters (a newline in a queue
/// name or id) and bidi controls are escaped, so they cannot break a table, fake a line or
/// reorder what is shown.
pub fn printable(text: &str) -> String {
    escape_controls(text, hidden)
}

/// A message for people, or the lines of a job's data or stderr: escaped as in
/// [`printable`], but for line breaks and tabs, which they may hold themselves. What a
/// message quotes from a job (an id) is made [`printable`] first, so that it cannot fake a
/// line either.
pub fn printable_message(text: &str) -> String {
    escape_controls(text, |c| hidden(c) && c != '\n' && c != '\t')
}

/// `text` with each character `escaped` picks written as Rust writes it (`\u{1b}`).
fn escape_controls(text: &str, escaped: impl Fn(char) -> bool) -> String {
    if !text.chars().any(&escaped) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if escaped(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    out
}

/// A word quoted for a POSIX shell, when it needs quoting.
pub fn shell_quote(word: &str) -> String {
    if !word.is_empty()
        && word
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_./:=@%+,{}".contains(&b))
    {
        word.to_string()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `word` with the password of every URL in it left out (`redis://:pw@h` is `redis://h`,
/// `redis://u:pw@h` is `redis://u@h`, and a `pass` or `password` in its query, as a
/// socket's URL may carry, is `***`): a command line as it may be shown or kept.
pub fn without_password(word: &str) -> String {
    let mut out = String::with_capacity(word.len());
    let mut rest = word;
    while let Some(pos) = rest.find("://") {
        let (head, tail) = rest.split_at(pos + 3);
        out.push_str(head);
        let end = tail.find(['/', '?']).unwrap_or(tail.len());
        let authority = &tail[..end];
        match authority.rfind('@') {
            Some(at) => {
                let user = authority[..at].split(':').next().unwrap_or("");
                if user.is_empty() {
                    out.push_str(&authority[at + 1..]);
                } else {
                    out.push_str(&format!("{user}@{}", &authority[at + 1..]));
                }
            }
            None => out.push_str(authority),
        }
        rest = &tail[end..];
        // The path, then a query whose password goes.
        let path_end = rest.find(['?', ' ']).unwrap_or(rest.len());
        out.push_str(&rest[..path_end]);
        rest = &rest[path_end..];
        if let Some(query) = rest.strip_prefix('?') {
            let end = query.find(char::is_whitespace).unwrap_or(query.len());
            let pairs: Vec<String> = query[..end]
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((k, _)) if matches!(k, "pass" | "password") => format!("{k}=***"),
                    _ => pair.to_string(),
                })
                .collect();
            out.push('?');
            out.push_str(&pairs.join("&"));
            rest = &query[end..];
        }
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_command_line_keeps_no_password() {
        assert_eq!(
            without_password("redis://:hunter2@h:6379/0"),
            "redis://h:6379/0"
        );
        assert_eq!(without_password("-u=redis://u:pw@h"), "-u=redis://u@h");
        assert_eq!(without_password("rediss://h:6380"), "rediss://h:6380");
        assert_eq!(without_password("mail"), "mail");
        assert_eq!(
            without_password("redis+unix:///tmp/r.sock?db=1&pass=hunter2"),
            "redis+unix:///tmp/r.sock?db=1&pass=***"
        );
        assert_eq!(
            without_password("unix:///tmp/r.sock?password=hunter2"),
            "unix:///tmp/r.sock?password=***"
        );
    }

    #[test]
    fn sizes_are_in_binary_units() {
        for (n, text) in [
            (1, "1 byte"),
            (1023, "1,023 bytes"),
            (1024, "1 KiB"),
            (1 << 20, "1 MiB"),
            (2_621_440, "2.5 MiB"),
            (1_100_069, "1.05 MiB"),
            (1_048_507, "1023.9 KiB"),
            (10 << 20, "10 MiB"),
            (512 << 20, "512 MiB"),
            (600_000_000, "572.2 MiB"),
            (3 << 30, "3 GiB"),
        ] {
            assert_eq!(size(n), text);
        }
    }

    #[test]
    fn running_times_read_at_a_glance() {
        assert_eq!(running(0.4), "0s");
        assert_eq!(running(42.9), "42s");
        assert_eq!(running(185.0), "3m 05s");
        assert_eq!(running(7800.0), "2h 10m");
        assert_eq!(running(273600.0), "3d 4h");
    }

    #[test]
    fn spans_are_rounded_to_their_largest_unit() {
        for (secs, text) in [
            (0.4, "0s"),
            (59.0, "59s"),
            (90.0, "2m"),
            (3600.0, "1h"),
            (100_000.0, "28h"),
            (1_048_575.0, "12d"),
        ] {
            assert_eq!(span(secs), text);
        }
    }

    #[test]
    fn counts_get_thousands_separators() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (63_500, "63,500"),
            (1_299_960, "1,299,960"),
            (u64::MAX, "18,446,744,073,709,551,615"),
        ] {
            assert_eq!(thousands(n), text);
        }
    }

    #[test]
    fn a_count_of_one_is_singular_and_any_other_plural() {
        assert_eq!(plural(1, "job"), "1 job");
        assert_eq!(plural(0, "job"), "0 jobs");
        assert_eq!(plural(2, "job"), "2 jobs");
        assert_eq!(plural(1000, "job"), "1,000 jobs");
        assert_eq!(plural(2, "round trip"), "2 round trips");
        assert_eq!(agree(1, "is", "are"), "is");
        assert_eq!(agree(3, "entry", "entries"), "entries");
    }
}
