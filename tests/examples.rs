//! The CI example, examples/github-actions.yml: a well-formed workflow whose qctl steps,
//! run as written against a real redis-server, pass when the cases pass and fail when one
//! fails.

mod support;

use std::path::Path;
use std::process::Output;

use serde_yaml::Value;

fn workflow() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/github-actions.yml");
    let text = std::fs::read_to_string(path).unwrap();
    serde_yaml::from_str(&text).unwrap_or_else(|e| panic!("{path} is not valid YAML: {e}"))
}

fn str_of<'a>(value: &'a Value, what: &str) -> &'a str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("{what} is not a string: {value:?}"))
}

/// The one job of the workflow.
fn test_job(workflow: &Value) -> &Value {
    let jobs = workflow["jobs"].as_mapping().expect("jobs is a mapping");
    assert_eq!(jobs.len(), 1, "one job");
    jobs.values().next().unwrap()
}

/// The job's steps that run qctl itself, in order.
fn qctl_steps(job: &Value) -> Vec<&Value> {
    job["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter(|step| step["run"].as_str().is_some_and(|r| r.starts_with("qctl ")))
        .collect()
}

#[test]
fn the_ci_example_is_a_workflow() {
    let workflow = workflow();
    let on = workflow["on"].as_mapping().expect("on: names the events");
    assert!(on.contains_key("push") && on.contains_key("pull_request"));
    assert!(
        workflow["env"]["QCTL_GIT"].is_string(),
        "QCTL_GIT says where qctl comes from"
    );

    let job = test_job(&workflow);
    assert_eq!(str_of(&job["runs-on"], "runs-on"), "ubuntu-latest");
    let suites = job["strategy"]["matrix"]["suite"]
        .as_sequence()
        .expect("a matrix of suites");
    assert!(suites.len() > 1);
    let redis = &job["services"]["redis"];
    assert!(str_of(&redis["image"], "image").starts_with("redis:"));
    assert_eq!(redis["ports"][0].as_str(), Some("6379:6379"));
    assert!(str_of(&redis["options"], "options").contains("--health-cmd"));
    assert_eq!(
        job["env"]["QCTL_REDIS_URL"].as_str(),
        Some("redis://127.0.0.1:6379")
    );

    let steps = job["steps"].as_sequence().expect("steps is a sequence");
    assert!(steps[0]["uses"]
        .as_str()
        .is_some_and(|u| u.starts_with("actions/checkout@")));
    let ids: Vec<&str> = steps.iter().filter_map(|s| s["id"].as_str()).collect();
    for step in steps {
        let map = step.as_mapping().expect("a step is a mapping");
        let (uses, run) = (step["uses"].as_str(), step["run"].as_str());
        assert!(
            uses.is_some() != run.is_some(),
            "a step has either uses or run: {map:?}"
        );
        if let Some(uses) = uses {
            let (action, version) = uses.split_once('@').expect("uses: OWNER/REPO@REF");
            assert!(action.contains('/') && !version.is_empty(), "{uses}");
        }
        for key in map.keys() {
            let key = str_of(key, "a step's key");
            assert!(
                ["name", "id", "if", "uses", "with", "run", "env"].contains(&key),
                "unknown step key {key}"
            );
        }
        // Every expression names a context the job has: the matrix, an earlier step, the runner.
        let text = serde_yaml::to_string(step).unwrap();
        for expr in text.split("${{").skip(1) {
            let expr = expr.split("}}").next().unwrap().trim();
            let known = expr == "matrix.suite"
                || expr == "runner.os"
                || ids
                    .iter()
                    .any(|id| expr.starts_with(&format!("steps.{id}.")));
            assert!(known, "unknown expression ${{{{ {expr} }}}}");
        }
    }
    let install = steps
        .iter()
        .filter_map(|s| s["run"].as_str())
        .find(|r| r.contains("cargo install"))
        .expect("a step installs qctl");
    assert!(install.contains("--locked") && install.ends_with(" qctl"));

    let runs: Vec<&str> = qctl_steps(job)
        .iter()
        .map(|s| s["run"].as_str().unwrap())
        .collect();
    assert!(runs[0].starts_with("qctl enqueue tests --lines"));
    assert!(runs[1].starts_with("qctl consume tests --drain"));
    assert!(runs[2].starts_with("qctl dead list tests"));
    assert_eq!(
        qctl_steps(job)[2]["if"].as_str(),
        Some("failure()"),
        "the failed cases are listed only when a step failed"
    );
}

/// A checkout of a project using the workflow: its cases for `suite` and its run-test.sh.
fn project(suite: &str, cases: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("tests/cases")).unwrap();
    let mut list = cases.join("\n");
    list.push('\n');
    std::fs::write(dir.path().join(format!("tests/cases/{suite}.txt")), list).unwrap();
    let script = dir.path().join("run-test.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\necho \"ran $1\"\ncase \"$1\" in\n  fail*) echo \"$1: assertion failed\" >&2; exit 1 ;;\nesac\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    dir
}

/// Runs a step's `run` as GitHub Actions does (bash -e -o pipefail), in `dir`, with the
/// matrix value filled in, the built qctl first on the PATH and the job's QCTL_REDIS_URL
/// pointing at `server`.
fn run_step(run: &str, suite: &str, dir: &Path, server: &support::RedisServer) -> Output {
    let script = run.replace("${{ matrix.suite }}", suite);
    assert!(!script.contains("${{"), "an expression is left in {script}");
    let bin = assert_cmd::cargo::cargo_bin("qctl");
    let path = format!(
        "{}:{}",
        bin.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    std::process::Command::new("bash")
        .args([
            "--noprofile",
            "--norc",
            "-e",
            "-o",
            "pipefail",
            "-c",
            &script,
        ])
        .current_dir(dir)
        .env("PATH", path)
        .env("QCTL_REDIS_URL", server.url())
        .env("NO_COLOR", "1")
        .env_remove("REDIS_URL")
        .output()
        .unwrap()
}

/// Runs the job's qctl steps in order for `suite`, as a runner would: a step after a failed
/// one runs only under `if: failure()`. Returns each step's output, None for a skipped step.
fn run_job(suite: &str, cases: &[&str]) -> Vec<Option<Output>> {
    let workflow = workflow();
    let server = support::RedisServer::start();
    let dir = project(suite, cases);
    let mut failed = false;
    let mut outputs = Vec::new();
    for step in qctl_steps(test_job(&workflow)) {
        let on_failure = step["if"].as_str() == Some("failure()");
        if failed != on_failure {
            outputs.push(None);
            continue;
        }
        let out = run_step(str_of(&step["run"], "run"), suite, dir.path(), &server);
        failed |= !out.status.success();
        outputs.push(Some(out));
    }
    assert_eq!(
        server.cmd::<i64>(&["EXISTS", "tests:active", "tests:scheduled"].map(str::as_bytes)),
        0,
        "every case ran"
    );
    outputs
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Which steps ran, with their exit codes and stderr, for a failure message.
fn describe(outputs: &[Option<Output>]) -> String {
    outputs
        .iter()
        .enumerate()
        .map(|(i, out)| match out {
            None => format!("step {i}: skipped\n"),
            Some(out) => format!(
                "step {i}: exit {:?}\n{}",
                out.status.code(),
                text(&out.stderr)
            ),
        })
        .collect()
}

#[test]
fn the_ci_example_passes_when_every_case_passes() {
    let workflow = workflow();
    let suites = test_job(&workflow)["strategy"]["matrix"]["suite"]
        .as_sequence()
        .unwrap()
        .clone();
    for suite in &suites {
        let suite = str_of(suite, "a suite");
        let cases: Vec<String> = (1..=6).map(|i| format!("{suite}-case-{i}")).collect();
        let cases: Vec<&str> = cases.iter().map(String::as_str).collect();
        let outputs = run_job(suite, &cases);
        let [Some(enqueue), Some(consume), None] = &outputs[..] else {
            panic!(
                "{suite}: enqueue and consume run, the failure listing does not:\n{}",
                describe(&outputs)
            )
        };
        assert_eq!(enqueue.status.code(), Some(0), "{}", text(&enqueue.stderr));
        assert_eq!(text(&enqueue.stdout).lines().count(), cases.len());
        assert_eq!(consume.status.code(), Some(0), "{}", text(&consume.stderr));
        let ran = text(&consume.stdout);
        for case in &cases {
            assert!(ran.contains(&format!("ran {case}\n")), "{case} did not run");
        }
    }
}

#[test]
fn the_ci_example_fails_with_7_and_lists_the_failed_case() {
    let outputs = run_job("unit", &["test-a", "fail-b", "test-c", "test-d"]);
    let [Some(enqueue), Some(consume), Some(listing)] = &outputs[..] else {
        panic!(
            "enqueue, consume and the failure listing run:\n{}",
            describe(&outputs)
        )
    };
    assert_eq!(enqueue.status.code(), Some(0), "{}", text(&enqueue.stderr));
    assert_eq!(consume.status.code(), Some(7), "{}", text(&consume.stderr));
    let ran = text(&consume.stdout);
    for case in ["test-a", "fail-b", "test-c", "test-d"] {
        assert!(ran.contains(&format!("ran {case}\n")), "{case} did not run");
    }
    assert_eq!(listing.status.code(), Some(0), "{}", text(&listing.stderr));
    let listed = text(&listing.stdout);
    assert!(
        listed.contains("fail-b") && listed.contains("assertion failed"),
        "{listed}"
    );
    for case in ["test-a", "test-c", "test-d"] {
        assert!(
            !listed.contains(case),
            "{case} passed but is listed:\n{listed}"
        );
    }
}
