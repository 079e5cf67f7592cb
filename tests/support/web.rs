//! `qctl web` as a process for the tests: started on a free port of loopback, its URL read
//! from its stdout, asked over HTTP with ureq.

use std::collections::HashMap;
use std::process::Command;
use std::time::Duration;

use super::{qctl_process, wait_until, Background, RedisServer};

/// A running `qctl web`, killed when dropped.
pub struct Web {
    pub process: Background,
    /// The URL it printed: `http://127.0.0.1:PORT/`.
    pub url: String,
    pub port: u16,
}

/// One HTTP answer.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    /// Header names in lowercase.
    pub headers: HashMap<String, String>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> &str {
        self.headers.get(name).map_or("", String::as_str)
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.body))
    }
}

/// An HTTP client that takes any status as an answer, within a minute.
fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(Duration::from_secs(60)))
        .build()
        .into()
}

impl Web {
    /// `qctl web --listen 127.0.0.1:0 ARGS` against `server`.
    pub fn start(server: &RedisServer, args: &[&str]) -> Web {
        let mut cmd = qctl_process(server);
        cmd.args(["web", "--listen", "127.0.0.1:0"]).args(args);
        Web::spawn(cmd)
    }

    /// Starts `cmd` (a `qctl ... web ...`) and waits for the URL it prints.
    pub fn spawn(mut cmd: Command) -> Web {
        cmd.env_remove("QCTL_WEB_PASSWORD")
            .env_remove("QCTL_WEB_PASSWORD_FILE");
        Web::spawn_as_is(cmd)
    }

    /// As [`Web::spawn`], with the environment `cmd` was given.
    pub fn spawn_as_is(cmd: Command) -> Web {
        let process = Background::spawn(cmd);
        let mut url = None;
        wait_until(Duration::from_secs(60), || {
            url = process
                .stdout()
                .lines()
                .next()
                .filter(|l| l.ends_with('/'))
                .map(str::to_string);
            url.is_some() || !super::running(process.pid())
        });
        let Some(url) = url else {
            panic!(
                "qctl web printed no URL: stdout {:?}, stderr {:?}",
                process.stdout(),
                process.stderr()
            );
        };
        let port = url
            .trim_end_matches('/')
            .rsplit(':')
            .next()
            .and_then(|p| p.parse().ok())
            .unwrap_or_else(|| panic!("no port in {url:?}"));
        Web { process, url, port }
    }

    /// GET `path` with the Host header a browser sends for the URL printed.
    pub fn get(&self, path: &str) -> Reply {
        self.request(path, &[])
    }

    /// GET `path` with these headers (a Host header given replaces the URL's).
    pub fn request(&self, path: &str, headers: &[(&str, &str)]) -> Reply {
        let mut request = agent().get(format!("{}{}", self.url, path.trim_start_matches('/')));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let mut response = request.call().expect("an HTTP response");
        let headers = response
            .headers()
            .iter()
            .map(|(k, v)| {
                (
                    k.as_str().to_ascii_lowercase(),
                    v.to_str().unwrap_or_default().to_string(),
                )
            })
            .collect();
        let body = response
            .body_mut()
            .with_config()
            .limit(256 << 20)
            .read_to_string()
            .expect("a body");
        Reply {
            status: response.status().as_u16(),
            headers,
            body,
        }
    }

    /// GET `path`: the status, the headers (names in lowercase; a header given twice has
    /// its values joined by `\n`) and the body's bytes as they came.
    pub fn get_bytes(&self, path: &str) -> (u16, HashMap<String, String>, Vec<u8>) {
        let mut response = agent()
            .get(format!("{}{}", self.url, path.trim_start_matches('/')))
            .call()
            .expect("an HTTP response");
        let mut headers: HashMap<String, String> = HashMap::new();
        for (k, v) in response.headers() {
            let v = String::from_utf8_lossy(v.as_bytes()).into_owned();
            headers
                .entry(k.as_str().to_ascii_lowercase())
                .and_modify(|e| {
                    e.push('\n');
                    e.push_str(&v);
                })
                .or_insert(v);
        }
        let body = response
            .body_mut()
            .with_config()
            .limit(256 << 20)
            .read_to_vec()
            .expect("a body");
        (response.status().as_u16(), headers, body)
    }

    /// `GET /api/overview`, which must answer 200.
    pub fn overview(&self) -> serde_json::Value {
        let reply = self.get("/api/overview");
        assert_eq!(reply.status, 200, "{reply:?}");
        reply.json()
    }

    /// The object of `queue` in `/api/overview`, if listed.
    pub fn queue(&self, queue: &str) -> Option<serde_json::Value> {
        self.overview()["queues"]
            .as_array()?
            .iter()
            .find(|q| q["queue"] == queue)
            .cloned()
    }
}
