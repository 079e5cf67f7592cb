//! The layers of the code run one way (docs/development.md, Layout): read from the sources,
//! the engine names no other module of qctl, the handlers only the engine and each other,
//! and the views (`top`, `web`) neither `commands` nor `cli`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// Whether the `r` at `i` begins the prefix of a raw string (`r"`, `br#"`, `cr"`), not the
/// end of a longer word.
fn raw_prefix(chars: &[char], i: usize) -> bool {
    let ident = |k: Option<usize>| {
        k.and_then(|k| chars.get(k))
            .is_some_and(|c| c.is_alphanumeric() || *c == '_')
    };
    match i.checked_sub(1).map(|k| chars[k]) {
        Some('b' | 'c') => !ident(i.checked_sub(2)),
        _ => !ident(i.checked_sub(1)),
    }
}

/// `text` with its comments, strings and character literals blanked out: a path quoted in a
/// doc comment or a message is no use of a module.
fn code_only(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let at = |i: usize, s: &str| {
        s.chars()
            .enumerate()
            .all(|(k, c)| chars.get(i + k) == Some(&c))
    };
    while i < chars.len() {
        let c = chars[i];
        if at(i, "//") {
            while i < chars.len() && chars[i] != '\n' {
                i += 1;
            }
        } else if at(i, "/*") {
            let mut depth = 0;
            while i < chars.len() {
                if at(i, "/*") {
                    depth += 1;
                    i += 2;
                } else if at(i, "*/") {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
            out.push(' ');
        } else if c == 'r'
            && (at(i + 1, "\"") || at(i + 1, "#"))
            && raw_prefix(&chars, i)
            && chars[i + 1..]
                .iter()
                .find(|c| **c != '#')
                .is_some_and(|c| *c == '"')
        {
            // A raw string: r"...", r#"..."#.
            let hashes = chars[i + 1..].iter().take_while(|c| **c == '#').count();
            let end: String = std::iter::once('"')
                .chain(std::iter::repeat_n('#', hashes))
                .collect();
            i += 2 + hashes;
            while i < chars.len() && !at(i, &end) {
                i += 1;
            }
            i += end.chars().count();
            out.push(' ');
        } else if c == '"' {
            i += 1;
            while i < chars.len() && chars[i] != '"' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else if c == '\'' && (chars.get(i + 1) == Some(&'\\') || chars.get(i + 2) == Some(&'\''))
        {
            // A character literal ('"', '\n', '\u{1b}'); a lifetime has no closing quote.
            i += 1;
            while i < chars.len() && chars[i] != '\'' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(' ');
        } else {
            out.push(c);
            i += 1;
        }
    }
    out
}

/// The code of `text` as tokens: words, `::`, and any other character alone.
fn tokens(text: &str) -> Vec<String> {
    let code = code_only(text);
    let mut tokens = Vec::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut w = c.to_string();
            while let Some(n) = chars.next_if(|n| n.is_alphanumeric() || *n == '_') {
                w.push(n);
            }
            tokens.push(w);
        } else if c == ':' && chars.next_if_eq(&':').is_some() {
            tokens.push("::".into());
        } else if !c.is_whitespace() {
            tokens.push(c.to_string());
        }
    }
    tokens
}

/// The modules at the top of the crate (`output`, `engine`) that the code of a file names,
/// by `crate::NAME`, `crate::{NAME, ...}`, or as many `super::` as take it to the crate's
/// root from `module`, the file's module path (`["engine", "history"]`), and from the
/// inline modules in it.
fn modules_named(text: &str, module: &[String]) -> BTreeSet<String> {
    let t = tokens(text);
    let is = |i: usize, s: &str| t.get(i).is_some_and(|w| w == s);
    let word = |i: usize| {
        t.get(i)
            .filter(|w| w.chars().all(|c| c.is_alphanumeric() || c == '_'))
            .cloned()
    };
    let mut named = BTreeSet::new();
    // The open braces, each true when it opens an inline module (`mod tests {`), which is
    // one more `super::` away from the root.
    let mut braces: Vec<bool> = Vec::new();
    let mut i = 0;
    while i < t.len() {
        match t[i].as_str() {
            "{" => braces.push(i >= 2 && is(i - 2, "mod")),
            "}" => {
                braces.pop();
            }
            _ => {}
        }
        let depth = module.len() + braces.iter().filter(|m| **m).count();
        // The token after the path's way to the crate's root, if `i` starts one.
        let mut root = None;
        if is(i, "crate") && is(i + 1, "::") {
            root = Some(i + 2);
        } else if is(i, "super") && !(i >= 2 && is(i - 1, "::") && is(i - 2, "super")) {
            let mut k = i;
            let mut ups = 0;
            while is(k, "super") && is(k + 1, "::") {
                ups += 1;
                k += 2;
            }
            if ups > 0 && ups >= depth {
                root = Some(k);
            }
        }
        if let Some(at) = root {
            if is(at, "{") {
                let mut depth = 0;
                let mut k = at;
                while k < t.len() {
                    match t[k].as_str() {
                        "{" => depth += 1,
                        "}" => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                    if depth == 1 && (is(k, "{") || is(k, ",")) {
                        if let Some(w) = word(k + 1).filter(|w| w != "self") {
                            named.insert(w);
                        }
                    }
                    k += 1;
                }
            } else if let Some(w) = word(at) {
                named.insert(w);
            }
        }
        i += 1;
    }
    named
}

/// Every `.rs` file under `path` (or `path` itself, if it is one), with its module path.
fn sources(path: &Path) -> Vec<(PathBuf, Vec<String>)> {
    let mut found = Vec::new();
    let mut todo = vec![path.to_path_buf()];
    while let Some(p) = todo.pop() {
        if p.is_dir() {
            for entry in std::fs::read_dir(&p).unwrap() {
                todo.push(entry.unwrap().path());
            }
        } else if p.is_file() && p.extension().is_some_and(|e| e == "rs") {
            let relative = p.strip_prefix(Path::new(ROOT).join("src")).unwrap();
            let mut module: Vec<String> = relative
                .with_extension("")
                .iter()
                .map(|s| s.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|m| m == "mod") {
                module.pop();
            }
            found.push((p, module));
        }
    }
    found.sort();
    found
}

#[test]
fn the_modules_a_file_names_are_found_however_it_names_them() {
    let module = |m: &str| m.split("::").map(String::from).collect::<Vec<_>>();
    let found = |text: &str, m: &str| {
        modules_named(text, &module(m))
            .into_iter()
            .collect::<Vec<_>>()
    };
    assert_eq!(
        found(
            "use crate::engine::text;\nuse crate::{output::{cut, plural}, self};",
            "top::view"
        ),
        ["engine", "output"]
    );
    assert_eq!(
        found(
            "let s = crate::commands :: consumers::state(c);",
            "top::view"
        ),
        ["commands"]
    );
    // `super::` reaches the crate's root from engine::history once, from engine/consumer
    // twice; short of it, it names a sibling.
    assert_eq!(
        found("use super::super::output;", "engine::history"),
        ["output"]
    );
    assert!(found("use super::super::output;", "engine::consumer::heartbeat").is_empty());
    assert_eq!(
        found(
            "use super::super::super::cli;",
            "engine::consumer::heartbeat"
        ),
        ["cli"]
    );
    assert!(found("use super::keys::QueueKeys;", "engine::history").is_empty());
    // An inline module is one more step from the root.
    assert_eq!(found("use super::signals;", "reaper"), ["signals"]);
    assert!(found("mod tests { use super::{parse, Line}; }", "reaper").is_empty());
    assert_eq!(
        found(
            "mod tests { use super::super::output; } use super::cli;",
            "reaper"
        ),
        ["cli", "output"]
    );
    // Comments, strings and characters are no use of a module.
    assert!(found(
        "// see crate::output\n/* crate::cli */ let q = '\"'; let s = \"crate::commands\";\n\
         let r = r#\"crate::top \"# ; /// [`crate::output::closed`]",
        "engine::history"
    )
    .is_empty());
    assert_eq!(
        found(
            "let q = '\"'; fn f<'a>(x: &'a str) { crate::top::x }",
            "engine"
        ),
        ["top"]
    );
    assert_eq!(
        found("let b = br#\"a\"b\"#; crate::cli::x", "engine"),
        ["cli"]
    );
}

#[test]
fn the_engine_handlers_and_views_name_no_layer_above_them() {
    let src = Path::new(ROOT).join("src");
    // (where, what it may name, what it must not; an empty list allows all but those).
    let rules: [(&str, &[&str], &[&str]); 6] = [
        ("engine", &["engine"], &[]),
        ("handler.rs", &["engine", "handler", "pipe", "reaper"], &[]),
        ("pipe.rs", &["engine", "handler", "pipe", "reaper"], &[]),
        ("reaper.rs", &["engine", "handler", "pipe", "reaper"], &[]),
        ("top", &[], &["commands", "cli"]),
        ("web", &[], &["commands", "cli"]),
    ];
    let mut wrong = Vec::new();
    let mut read = 0;
    for (place, allowed, forbidden) in rules {
        let mut paths = sources(&src.join(place));
        if place == "handler.rs" {
            // The per-job handler, the piped one and the reaper may be gathered in
            // src/handler/ as one module.
            paths.extend(sources(&src.join("handler")));
        }
        for (path, module) in paths {
            let text = std::fs::read_to_string(&path).unwrap();
            read += 1;
            for name in modules_named(&text, &module) {
                let bad = if allowed.is_empty() {
                    forbidden.contains(&name.as_str())
                } else {
                    !allowed.contains(&name.as_str())
                };
                if bad {
                    wrong.push(format!(
                        "{} uses crate::{name}",
                        path.strip_prefix(ROOT).unwrap().display()
                    ));
                }
            }
        }
    }
    assert!(read > 30, "only {read} files read");
    assert!(
        wrong.is_empty(),
        "layers used the wrong way:\n{}",
        wrong.join("\n")
    );
    // The scan sees what the commands use, so an empty list above is no scan that saw nothing.
    let consumers = src.join("commands/consumers.rs");
    let named = modules_named(
        &std::fs::read_to_string(&consumers).unwrap(),
        &["commands".into(), "consumers".into()],
    );
    assert!(
        named.contains("engine") && named.contains("output"),
        "{named:?}"
    );
}
