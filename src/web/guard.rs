//! What every request passes before a page or the API sees it, as one axum middleware: the
//! Host header must name this server (DNS rebinding), the password must be right when one
//! is set (HTTP basic auth, compared in constant time), and every response, refusals
//! included, carries the security headers.

use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::header::{self, HeaderName, HeaderValue};
use axum::http::StatusCode;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use subtle::ConstantTimeEq;

/// The Content-Security-Policy of every response: scripts, styles and everything else from
/// this server's own /assets/ only (no inline script or style), never in a frame.
pub const CSP: &str =
    "default-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// The headers every response carries.
const HEADERS: [(&str, &str); 6] = [
    ("content-security-policy", CSP),
    ("x-content-type-options", "nosniff"),
    ("referrer-policy", "no-referrer"),
    ("x-frame-options", "DENY"),
    ("cross-origin-opener-policy", "same-origin"),
    ("cross-origin-resource-policy", "same-origin"),
];

/// The realm browsers show when they ask for the password.
const REALM: &str = "Basic realm=\"qctl web\", charset=\"UTF-8\"";

/// The password a browser must send, kept as its SHA-256 digest: digests of any input
/// have one length, so comparing them in constant time says nothing of the password's.
pub struct Password(ring::digest::Digest);

impl Password {
    pub fn new(password: &str) -> Password {
        Password(digest(password.as_bytes()))
    }

    /// Whether `given` is the password, in time that does not depend on where they differ.
    fn matches(&self, given: &[u8]) -> bool {
        digest(given).as_ref().ct_eq(self.0.as_ref()).into()
    }
}

impl std::fmt::Debug for Password {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Password(..)")
    }
}

fn digest(bytes: &[u8]) -> ring::digest::Digest {
    ring::digest::digest(&ring::digest::SHA256, bytes)
}

/// Who may ask, and how.
#[derive(Debug)]
pub struct Guard {
    /// The address served on.
    pub listen: SocketAddr,
    /// Host names allowed besides the address: `name` (any port) or `name:port`, lowercase.
    pub allowed_hosts: Vec<String>,
    pub password: Option<Password>,
}

impl Guard {
    /// Whether the Host header `host` names this server: the address served on (on a
    /// wildcard address, any IP address: a page can only reach an address by name through
    /// DNS, and a name is what rebinding needs), `localhost` on loopback, or a name allowed;
    /// with the port served on (or none, for a name allowed without one).
    pub fn host_allowed(&self, host: &str) -> bool {
        let host = host.trim().to_ascii_lowercase();
        let Some((name, port)) = split_host(&host) else {
            return false;
        };
        let name = name.strip_suffix('.').unwrap_or(name);
        let right_port = port == Some(self.listen.port());
        for allowed in &self.allowed_hosts {
            match split_host(allowed) {
                Some((n, None)) if n == name => return true,
                Some((n, Some(p))) if n == name && port == Some(p) => return true,
                _ => {}
            }
        }
        if !right_port {
            return false;
        }
        let ip = self.listen.ip();
        match name
            .trim_start_matches('[')
            .trim_end_matches(']')
            .parse::<IpAddr>()
        {
            Ok(asked) => {
                asked == ip || ip.is_unspecified() || (ip.is_loopback() && asked.is_loopback())
            }
            Err(_) => name == "localhost" && (ip.is_loopback() || ip.is_unspecified()),
        }
    }

    /// Whether the request carries the password (when one is set).
    fn authorised(&self, request: &Request) -> bool {
        let Some(password) = &self.password else {
            return true;
        };
        let Some(value) = request.headers().get(header::AUTHORIZATION) else {
            return false;
        };
        let Some(encoded) = value.to_str().ok().and_then(|v| {
            v.strip_prefix("Basic ")
                .or_else(|| v.strip_prefix("basic "))
        }) else {
            return false;
        };
        let Ok(decoded) = base64::engine::general_purpose::STANDARD.decode(encoded.trim()) else {
            return false;
        };
        // `user:password`: any user name.
        let given = match decoded.iter().position(|b| *b == b':') {
            Some(colon) => &decoded[colon + 1..],
            None => return false,
        };
        password.matches(given)
    }
}

/// The user name of a request's basic auth (qctl web checks the password only: the name is
/// what the person typed, for the record of the changes they make).
pub fn user_of(headers: &axum::http::HeaderMap) -> Option<String> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let encoded = value
        .strip_prefix("Basic ")
        .or_else(|| value.strip_prefix("basic "))?;
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let colon = decoded.iter().position(|b| *b == b':')?;
    let user = String::from_utf8_lossy(&decoded[..colon]).into_owned();
    (!user.is_empty()).then_some(user)
}

/// `name` and port of a Host header (`[::1]:9188`, `localhost:9188`, `example.com`); None
/// when it is not one.
fn split_host(host: &str) -> Option<(&str, Option<u16>)> {
    let (name, port) = if host.starts_with('[') {
        let end = host.find(']')?;
        let rest = &host[end + 1..];
        let port = match rest.strip_prefix(':') {
            Some(p) => Some(p.parse().ok()?),
            None if rest.is_empty() => None,
            None => return None,
        };
        (&host[..=end], port)
    } else {
        match host.rsplit_once(':') {
            Some((name, port)) => (name, Some(port.parse().ok()?)),
            None => (host, None),
        }
    };
    (!name.is_empty()).then_some((name, port))
}

/// Whether every name `request` gives for the server is one it serves: its Host headers and,
/// in an absolute-form or HTTP/2 request, the authority of its URI. A request naming none,
/// or two Host headers, is refused: a proxy or cache before qctl may read another than the
/// one checked.
fn names_allowed(guard: &Guard, request: &Request) -> bool {
    let hosts: Vec<_> = request.headers().get_all(header::HOST).iter().collect();
    if hosts.len() > 1 {
        return false;
    }
    let mut names = Vec::new();
    for host in hosts {
        match host.to_str() {
            Ok(host) => names.push(host.to_string()),
            Err(_) => return false,
        }
    }
    if let Some(authority) = request.uri().authority() {
        names.push(authority.to_string());
    }
    !names.is_empty() && names.iter().all(|name| guard.host_allowed(name))
}

/// The middleware: refuses a request for another host (421) or without the password (401),
/// runs the others, and adds the security headers to every response.
pub async fn check(State(guard): State<Arc<Guard>>, request: Request, next: Next) -> Response {
    let mut response = if names_allowed(&guard, &request) {
        if guard.authorised(&request) {
            next.run(request).await
        } else {
            let mut r = plain(
                StatusCode::UNAUTHORIZED,
                "this page needs the password qctl web was given\n",
            );
            r.headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static(REALM));
            r
        }
    } else {
        plain(
            StatusCode::MISDIRECTED_REQUEST,
            "this request names a host qctl web does not serve: open it by the address it \
             listens on, or give the name with --allowed-host\n",
        )
    };
    let headers = response.headers_mut();
    for (name, value) in HEADERS {
        headers.insert(
            HeaderName::from_static(name),
            HeaderValue::from_static(value),
        );
    }
    // Pages and the API change at every reading; the assets say their own.
    if !headers.contains_key(header::CACHE_CONTROL) {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    response
}

/// A plain-text response.
pub fn plain(status: StatusCode, text: &'static str) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        Body::from(text),
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn guard(listen: &str, allowed: &[&str]) -> Guard {
        Guard {
            listen: listen.parse().unwrap(),
            allowed_hosts: allowed.iter().map(|s| s.to_string()).collect(),
            password: None,
        }
    }

    #[test]
    fn loopback_answers_its_own_addresses_and_localhost_only() {
        let g = guard("127.0.0.1:9188", &[]);
        for host in [
            "127.0.0.1:9188",
            "localhost:9188",
            "LOCALHOST:9188",
            "[::1]:9188",
        ] {
            assert!(g.host_allowed(host), "{host}");
        }
        for host in [
            "evil.example:9188",
            "127.0.0.1:9189",
            "127.0.0.1",
            "localhost",
            "",
            "localhost:9188:9188",
            "[::1]x:9188",
            "10.0.0.1:9188",
        ] {
            assert!(!g.host_allowed(host), "{host}");
        }
    }

    #[test]
    fn names_allowed_match_with_any_port_or_the_one_given() {
        let g = guard(
            "127.0.0.1:9188",
            &["queues.example.com", "ops.example.com:8443"],
        );
        assert!(g.host_allowed("queues.example.com"));
        assert!(g.host_allowed("Queues.Example.com.:443"));
        assert!(g.host_allowed("ops.example.com:8443"));
        assert!(!g.host_allowed("ops.example.com"));
        assert!(!g.host_allowed("evil.queues.example.com"));
    }

    #[test]
    fn a_wildcard_address_answers_any_ip_address_but_no_other_name() {
        let g = guard("0.0.0.0:9188", &[]);
        assert!(g.host_allowed("192.168.1.5:9188"));
        assert!(g.host_allowed("localhost:9188"));
        assert!(!g.host_allowed("rebind.example:9188"));
        let g = guard("192.168.1.5:9188", &[]);
        assert!(g.host_allowed("192.168.1.5:9188"));
        assert!(!g.host_allowed("192.168.1.6:9188"));
        assert!(!g.host_allowed("localhost:9188"));
    }

    #[test]
    fn the_password_matches_only_itself() {
        let p = Password::new("s3cret");
        assert!(p.matches(b"s3cret"));
        assert!(!p.matches(b"s3cre"));
        assert!(!p.matches(b"s3cret "));
        assert!(!p.matches(b""));
        assert_eq!(format!("{p:?}"), "Password(..)");
    }
}
