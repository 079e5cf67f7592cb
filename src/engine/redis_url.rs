//! What is wrong with a Redis URL, in words: a scheme that is not Redis's, a missing host, a
//! port out of range, a database that is no number, a bad %-escape in a user or password, a
//! query that would be ignored. Never quotes a user, a password or a query's values.

/// The schemes of a server over TCP (`rediss` and `valkeys`: with TLS).
const TCP: [&str; 4] = ["redis", "rediss", "valkey", "valkeys"];
/// The schemes of a server on a Unix socket.
const UNIX: [&str; 3] = ["unix", "redis+unix", "valkey+unix"];

/// What is wrong with `url`, or None when nothing is known to be (the client library then
/// reads it, and may still refuse it in its own words).
pub fn problem(url: &str) -> Option<String> {
    let Some((scheme, rest)) = url.split_once("://") else {
        if url.starts_with('/') {
            return Some(
                "a Unix socket is given as a URL: unix:///path/to/redis.sock (or \
                 redis+unix://)"
                    .into(),
            );
        }
        let bare = !url.is_empty() && !url.contains(['@', '?', '#', ' ', '/']);
        return Some(if bare {
            format!("it has no scheme: write redis://{url} (rediss://{url} for TLS)")
        } else {
            "expected a URL such as redis://127.0.0.1:6379/0 or rediss://host:6380".into()
        });
    };
    let plain = !scheme.is_empty()
        && scheme
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c));
    if !plain {
        return Some(
            "it does not start with a scheme: expected a URL such as redis://127.0.0.1:6379/0"
                .into(),
        );
    }
    let scheme = scheme.to_ascii_lowercase();
    if TCP.contains(&scheme.as_str()) {
        tcp_problem(&scheme, rest)
    } else if UNIX.contains(&scheme.as_str()) {
        unix_problem(rest)
    } else {
        Some(match scheme.as_str() {
            "https" | "tls" | "ssl" => format!(
                "{scheme}:// is not a scheme of Redis: a Redis server over TLS is \
                 rediss://host:port"
            ),
            _ => format!(
                "{scheme}:// is not a scheme of Redis: use redis://host:port, rediss://host:port \
                 (TLS) or unix:///path/to/redis.sock"
            ),
        })
    }
}

/// `host[:port][/db][?query][#fragment]` after `redis://` or `rediss://`.
fn tcp_problem(scheme: &str, rest: &str) -> Option<String> {
    let (rest, fragment) = match rest.split_once('#') {
        Some((rest, fragment)) => (rest, Some(fragment)),
        None => (rest, None),
    };
    let (rest, query) = match rest.split_once('?') {
        Some((rest, query)) => (rest, Some(query)),
        None => (rest, None),
    };
    let (authority, path) = match rest.find('/') {
        Some(at) => rest.split_at(at),
        None => (rest, ""),
    };
    if path.contains('@') || query.is_some_and(|q| q.contains('@')) {
        return Some(
            "the user name or password holds a / or ? (the URL's host ends there): write a / \
             as %2F and a ? as %3F"
                .into(),
        );
    }
    let hostport = match authority.rfind('@') {
        Some(at) => {
            let userinfo = &authority[..at];
            let (user, password) = match userinfo.split_once(':') {
                Some((user, password)) => (user, Some(password)),
                None => (userinfo, None),
            };
            if let Some(why) = escape_problem(user) {
                return Some(format!("the user name {why}"));
            }
            if let Some(why) = password.and_then(escape_problem) {
                return Some(format!("the password {why}"));
            }
            &authority[at + 1..]
        }
        None => authority,
    };
    let (host, port) = if let Some(inside) = hostport.strip_prefix('[') {
        let Some((address, after)) = inside.split_once(']') else {
            return Some("the IPv6 address has no closing ]: write it as [::1]".into());
        };
        if address.parse::<std::net::Ipv6Addr>().is_err() {
            return Some(format!("[{address}] is not an IPv6 address"));
        }
        match after {
            "" => (hostport, None),
            _ => match after.strip_prefix(':') {
                Some(port) => (&hostport[..hostport.len() - after.len()], Some(port)),
                None => return Some(format!("{after:?} after the IPv6 address is no port")),
            },
        }
    } else {
        match hostport.split_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (hostport, None),
        }
    };
    if host.is_empty() {
        return Some(format!(
            "the host is missing: expected {scheme}://HOST[:PORT][/DB], as in \
             {scheme}://127.0.0.1:6379"
        ));
    }
    if let Some(port) = port.filter(|p| !p.is_empty()) {
        if !port.chars().all(|c| c.is_ascii_digit()) {
            return Some(format!(
                "the port {port:?} is not a number: ports go from 1 to 65535"
            ));
        }
        match port.parse::<u32>() {
            Ok(0) => return Some("port 0 cannot be connected to: ports go from 1 to 65535".into()),
            Ok(n) if n <= 65535 => {}
            _ => {
                return Some(format!(
                    "the port {port} is out of range: ports go from 1 to 65535"
                ))
            }
        }
    }
    if !host.starts_with('[') {
        let shown = format!("{scheme}://{host}");
        if let Err(e) = url::Url::parse(&shown) {
            return Some(match e {
                url::ParseError::InvalidDomainCharacter => {
                    format!("the host {host:?} holds a character a host name cannot hold")
                }
                url::ParseError::InvalidIpv4Address => {
                    format!("the host {host:?} is not an IPv4 address")
                }
                e => format!("the host {host:?} cannot be read: {e}"),
            });
        }
    }
    if let Some(why) = database_problem(path.trim_matches('/'), "path") {
        return Some(why);
    }
    if let Some(query) = query {
        for (key, _) in pairs(query) {
            match key {
                // The client library reads it (RESP2 or RESP3).
                "protocol" => {}
                "db" => {
                    return Some(format!(
                        "a {scheme}:// URL gives its database as the path, not as ?db=: \
                         {scheme}://host:port/DB"
                    ))
                }
                "user" | "pass" | "password" => {
                    return Some(format!(
                        "a {scheme}:// URL gives the user and password before the host \
                         ({scheme}://user:password@host), not as ?{key}=; better, give them \
                         with --user and $QCTL_REDIS_PASSWORD"
                    ))
                }
                _ => {
                    return Some(format!(
                        "the query parameter {key:?} means nothing to qctl: a {scheme}:// URL \
                         is {scheme}://[user:password@]host[:port][/db]"
                    ))
                }
            }
        }
    }
    let tls = scheme == "rediss" || scheme == "valkeys";
    match fragment {
        Some("insecure") if tls => None,
        Some(_) if tls => {
            Some("the only fragment a rediss:// URL takes is #insecure (or --tls-insecure)".into())
        }
        Some(_) => Some(format!(
            "a {scheme}:// URL takes no #fragment: {scheme}://[user:password@]host[:port][/db]"
        )),
        None => None,
    }
}

/// `/path/to/redis.sock[?db=N&user=U&pass=P]` after `unix://`.
fn unix_problem(rest: &str) -> Option<String> {
    let (path, query) = match rest.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (rest, None),
    };
    if !path.starts_with('/') || path.len() == 1 {
        return Some(
            "a Unix socket URL names the socket's absolute path, after three slashes: \
             unix:///path/to/redis.sock"
                .into(),
        );
    }
    for (key, value) in pairs(query.unwrap_or_default()) {
        match key {
            "db" => {
                if let Some(why) = database_problem(value, "db") {
                    return Some(why);
                }
            }
            "user" | "pass" | "protocol" => {}
            _ => {
                return Some(format!(
                    "the query parameter {key:?} means nothing to qctl: a Unix socket URL \
                     takes ?db=N (and user=, pass=, better given with --user and \
                     $QCTL_REDIS_PASSWORD)"
                ))
            }
        }
    }
    None
}

/// The key and value of each `key=value` of a query (not decoded).
fn pairs(query: &str) -> impl Iterator<Item = (&str, &str)> {
    query
        .split('&')
        .filter(|p| !p.is_empty())
        .map(|p| p.split_once('=').unwrap_or((p, "")))
}

/// What is wrong with a database number given as `what` (the path, or ?db=).
fn database_problem(db: &str, what: &str) -> Option<String> {
    if db.is_empty() {
        return None;
    }
    let shown = if db.len() > 20 {
        format!("{}…", db.chars().take(20).collect::<String>())
    } else {
        db.to_string()
    };
    match db.parse::<i64>() {
        Ok(n) if n >= 0 => None,
        Ok(_) => Some(format!(
            "the database {shown} is negative: databases are numbered from 0"
        )),
        Err(_) if what == "path" => Some(format!(
            "the path {shown:?} is no database number: the path of a Redis URL is the database, \
             as in redis://host:6379/2"
        )),
        Err(_) => Some(format!("the database {shown:?} (?db=) is not a number")),
    }
}

/// What is wrong with the %-escapes of a user name or password, without quoting it: a `%`
/// not followed by two hex digits, or bytes that are not UTF-8 once decoded.
fn escape_problem(text: &str) -> Option<String> {
    let bytes = text.as_bytes();
    let mut decoded = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok());
            match hex {
                Some(byte) => {
                    decoded.push(byte);
                    i += 3;
                    continue;
                }
                None => {
                    return Some(
                        "holds a % that is not followed by two hex digits: write a % as %25 \
                         (an @ as %40, a : as %3A)"
                            .into(),
                    )
                }
            }
        }
        decoded.push(bytes[i]);
        i += 1;
    }
    match String::from_utf8(decoded) {
        Ok(_) => None,
        Err(_) => Some("is not UTF-8 once its %-escapes are decoded".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::problem;

    #[test]
    fn every_bad_form_says_what_is_wrong() {
        for (url, words) in [
            ("http://h", "http:// is not a scheme of Redis"),
            ("https://h:443", "rediss://"),
            ("ftp://u:hunter2@h", "ftp://"),
            ("redis://127.0.0.1:99999", "port 99999 is out of range"),
            ("redis://h:0", "port 0"),
            ("redis://h:abc", "\"abc\" is not a number"),
            ("redis://h:-1", "\"-1\" is not a number"),
            ("redis://:6379", "host is missing"),
            ("redis://", "host is missing"),
            ("redis:///0", "host is missing"),
            ("rediss://u:hunter2@:6380", "host is missing"),
            ("redis://u:p%zz@h", "password holds a %"),
            ("redis://:p%4@h", "password holds a %"),
            ("redis://u:p%ff@h", "password is not UTF-8"),
            ("redis://u%zz:hunter2@h", "user name holds a %"),
            ("redis://h/abc", "no database number"),
            ("redis://h/3/4", "no database number"),
            ("redis://h:6379/-1", "negative"),
            ("redis://[::1", "closing ]"),
            ("redis://[zz]:1", "not an IPv6 address"),
            ("redis://h h", "cannot hold"),
            ("redis://h?db=3", "as the path"),
            ("redis://h?pass=hunter2", "before the host"),
            ("redis://h?x=1", "\"x\" means nothing"),
            ("redis://h#insecure", "no #fragment"),
            ("rediss://h#x", "#insecure"),
            ("unix://relative.sock", "absolute path"),
            ("unix://", "absolute path"),
            ("redis+unix:///tmp/r.sock?db=x", "not a number"),
            ("unix:///tmp/r.sock?x=1", "\"x\" means nothing"),
            ("/tmp/redis.sock", "unix:///path/to/redis.sock"),
            ("127.0.0.1:6390", "write redis://127.0.0.1:6390"),
            ("nonsense", "write redis://nonsense"),
            ("u:hunter2@127.0.0.1:7000", "expected a URL"),
            ("u:hunter2@h://x", "does not start with a scheme"),
            ("redis://:hunter2/x@127.0.0.1:7000", "holds a / or ?"),
            ("redis://u:hun?ter2@127.0.0.1:7000", "holds a / or ?"),
        ] {
            let why = problem(url).unwrap_or_else(|| panic!("{url} passed"));
            assert!(why.contains(words), "{url}: {why}");
            assert!(!why.contains("hunter2"), "{url}: {why}");
        }
    }

    #[test]
    fn good_forms_pass() {
        for url in [
            "redis://127.0.0.1:6379",
            "redis://h",
            "redis://h:",
            "REDIS://h",
            "redis://u:p%40ss@h:7000/3",
            "redis://:pw@h/",
            "rediss://h:6380#insecure",
            "redis://[::1]:6379/2",
            "redis://[::1]",
            "redis://h/0?protocol=resp3",
            "unix:///tmp/redis.sock",
            "redis+unix:///tmp/redis.sock?db=2&user=u&pass=p",
            "valkey://h:6379",
        ] {
            assert_eq!(problem(url), None, "{url}");
        }
    }
}
