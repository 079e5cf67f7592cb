//! Counts in messages: `1,299,960`, `1 job`, `2 jobs`, and what an answer to a question
//! means. Pure text, no terminal code, so the engine, the commands and the views word counts
//! and read answers the same way.

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

#[cfg(test)]
mod tests {
    use super::*;

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
