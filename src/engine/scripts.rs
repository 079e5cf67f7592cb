//! The Lua scripts in `lua/`, one per state change, embedded in the binary. They run by
//! EVALSHA; a server that lost them (restart, SCRIPT FLUSH, failover) gets them loaded again
//! and the call is repeated, singly, inside a pipeline or in a [`Window`]. A script that runs
//! in one MULTI/EXEC after a plain command ([`Lua::call_after`]) is sent by EVAL instead, so
//! that it cannot be missing once the command before it has run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

use futures_util::future::BoxFuture;
use futures_util::stream::FuturesOrdered;
use futures_util::{FutureExt as _, StreamExt as _};
use redis::{FromRedisValue, RedisResult, ToRedisArgs, Value};

use super::conn::Redis;
use super::error::Error;

/// One embedded script.
pub struct Lua {
    pub name: &'static str,
    source: &'static str,
    script: redis::Script,
}

impl Lua {
    fn new(name: &'static str, source: &'static str) -> Self {
        Lua {
            name,
            source,
            script: redis::Script::new(source),
        }
    }
}

macro_rules! scripts {
    ($($ident:ident => $file:literal),* $(,)?) => {
        $(
            #[doc = concat!("`lua/", $file, ".lua`")]
            pub static $ident: LazyLock<Lua> = LazyLock::new(|| {
                Lua::new($file, concat!(
                    include_str!("../../lua/lib.lua"),
                    include_str!(concat!("../../lua/", $file, ".lua"))
                ))
            });
        )*
        /// Every embedded script, for tests and for loading them all at once.
        pub fn all() -> Vec<&'static Lua> {
            vec![$(&*$ident),*]
        }
    };
}

scripts! {
    PUSH => "push",
    PUSH_NEW => "push_new",
    SCHEDULE => "schedule",
    PROMOTE => "promote",
    RESERVE => "reserve",
    ACK => "ack",
    RETRY => "retry",
    KILL => "kill",
    REQUEUE => "requeue",
    RECOVER => "recover",
    DEREGISTER => "deregister",
    REQUEUE_DEAD => "requeue_dead",
    DELETE => "delete",
    DELETE_ACTIVE => "delete_active",
    RUN_NOW => "run_now",
}

impl Lua {
    /// The SHA1 that EVALSHA names the script by.
    pub fn sha(&self) -> &str {
        self.script.get_hash()
    }

    /// The source, as embedded.
    pub fn source(&self) -> &'static str {
        self.source
    }

    /// Starts a call with these keys; add ARGV with [`Call::arg`].
    pub fn call(&self, keys: &[&str]) -> Call<'_> {
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(self.sha()).arg(keys.len()).arg(keys);
        Call {
            lua: self,
            cmd,
            before: None,
        }
    }

    /// Starts a call that runs right after the commands `before`, in one MULTI/EXEC with
    /// them: no other client sees the effect of some without the others. The call fails
    /// unless each command answers the integer given with it, if one is; its reply is the
    /// script's. Add ARGV with [`Call::arg`].
    pub fn call_after(&self, before: Vec<(redis::Cmd, Option<i64>)>, keys: &[&str]) -> Call<'_> {
        let mut cmd = redis::cmd("EVAL");
        cmd.arg(self.source()).arg(keys.len()).arg(keys);
        let mut pipe = redis::pipe();
        pipe.atomic().ignore_errors();
        let mut expects = Vec::with_capacity(before.len());
        for (command, expect) in before {
            pipe.add_command(command);
            expects.push(expect);
        }
        pipe.add_command(cmd);
        Call {
            lua: self,
            cmd: redis::Cmd::new(),
            before: Some((pipe, expects)),
        }
    }

    /// SCRIPT LOAD.
    pub async fn load(&self, redis: &mut Redis) -> Result<(), Error> {
        let mut cmd = redis::cmd("SCRIPT");
        cmd.arg("LOAD").arg(self.source());
        let _: String = redis
            .query(&cmd, format!("SCRIPT LOAD {}", self.name))
            .await?;
        Ok(())
    }
}

/// One call of a script, ready to run alone or in [`invoke_all`].
#[derive(Clone)]
pub struct Call<'a> {
    lua: &'a Lua,
    cmd: redis::Cmd,
    /// When the script runs after other commands ([`Lua::call_after`]): the transaction,
    /// the script last (`cmd` is then empty), and the integer each command before it must
    /// answer, if any.
    before: Option<(redis::Pipeline, Vec<Option<i64>>)>,
}

impl Call<'_> {
    pub fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        match &mut self.before {
            Some((pipe, _)) => {
                pipe.arg(arg);
            }
            None => {
                self.cmd.arg(arg);
            }
        }
        self
    }

    /// The script's command.
    fn script(&self) -> &redis::Cmd {
        match &self.before {
            Some((pipe, _)) => pipe.cmd_iter().last().unwrap_or(&self.cmd),
            None => &self.cmd,
        }
    }

    /// The commands run before the script, each with the integer it must answer, if any.
    fn before(&self) -> impl Iterator<Item = (&redis::Cmd, Option<i64>)> {
        self.before
            .iter()
            .flat_map(|(pipe, expects)| pipe.cmd_iter().zip(expects.iter().copied()))
    }

    /// Runs the call, loading the script first when the server does not have it.
    pub async fn invoke<T: FromRedisValue>(&self, redis: &mut Redis) -> Result<T, Error> {
        if self.before.is_some() {
            check_transactions(redis).await?;
        }
        let reply = match self.query(redis).await {
            Err(e) if is_noscript(&e) => {
                self.lua.load(redis).await?;
                self.query(redis).await
            }
            reply => reply,
        };
        let value = reply.map_err(|e| self.error(redis, e))?;
        redis::from_redis_value(value)
            .map_err(|e| redis.error(format!("reading the reply of {}", self.op()), e.into()))
    }

    /// Sends the call once: the script's reply or error.
    async fn query(&self, redis: &mut Redis) -> RedisResult<Value> {
        let Some((pipe, expects)) = &self.before else {
            return self.cmd.query_async(redis.conn()).await;
        };
        let mut replies: Vec<Value> = pipe.query_async(redis.conn()).await?;
        let unexpected = |detail: String| {
            redis::RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "unexpected reply",
                detail,
            ))
        };
        if replies.len() != expects.len() + 1 {
            return Err(unexpected(format!(
                "EXEC answered {} replies for {} commands",
                replies.len(),
                expects.len() + 1
            )));
        }
        let reply = replies.pop().unwrap_or(Value::Nil);
        // The script's error comes first: it names the key when a key holds another type, and
        // the commands before it then failed the same way.
        if let Value::ServerError(e) = reply {
            return Err(e.into());
        }
        for ((cmd, expect), got) in self.before().zip(replies) {
            match (got, expect) {
                (Value::ServerError(e), _) => return Err(e.into()),
                (Value::Int(n), Some(want)) if n != want => {
                    return Err(unexpected(format!(
                        "{} answered {n}, not {want}",
                        command_name(cmd)
                    )))
                }
                (Value::Int(_), _) | (_, None) => {}
                (other, Some(want)) => {
                    return Err(unexpected(format!(
                        "{} answered {other:?}, not {want}",
                        command_name(cmd)
                    )))
                }
            }
        }
        Ok(reply)
    }

    fn op(&self) -> String {
        format!("script {}", self.lua.name)
    }

    /// The error of this call, an ACL refusal made to name the command and the key denied.
    fn error(&self, redis: &Redis, err: redis::RedisError) -> Error {
        let sent = if self.before.is_none() {
            "EVALSHA of the script".to_string()
        } else {
            let names: Vec<String> = self.before().map(|(c, _)| command_name(c)).collect();
            format!(
                "{} then EVAL of the script, in one MULTI/EXEC,",
                names.join(", ")
            )
        };
        explain_denial(redis.error(self.op(), err), self.lua, &sent, &self.keys())
    }

    /// The call's KEYS, read back from the command (`EVALSHA sha numkeys key...`) only when
    /// an error needs them, so a call carries no copy of them.
    fn keys(&self) -> Vec<String> {
        let args: Vec<&[u8]> = self
            .script()
            .args_iter()
            .filter_map(|a| match a {
                redis::Arg::Simple(bytes) => Some(bytes),
                _ => None,
            })
            .collect();
        let count = args
            .get(2)
            .and_then(|n| std::str::from_utf8(n).ok())
            .and_then(|n| n.parse::<usize>().ok())
            .unwrap_or(0);
        args.iter()
            .skip(3)
            .take(count)
            .map(|k| String::from_utf8_lossy(k).into_owned())
            .collect()
    }
}

/// Makes an ACL refusal of a script call say which command and key were denied. Inside a
/// script Redis reports it as `ERR The user executing the script can't run this command or
/// subcommand ... on @user_script:LINE.` (7.0) or `ERR ACL failure in script: ...` (7.2+,
/// Valkey), naming neither the key nor, in 7.0, the command: both are read from that line
/// of the script. The error becomes a NOPERM, so that nobody retries it.
fn explain_denial(err: Error, lua: &Lua, sent: &str, keys: &[String]) -> Error {
    let Error::Redis {
        server,
        op,
        reason,
        code,
    } = err
    else {
        return err;
    };
    let inside = reason.contains("The user executing the script can't")
        || reason.contains("ACL failure in script");
    let reason = if inside {
        let what = match denied_call(lua.source(), &reason, keys) {
            Some((command, Some(key))) => format!("{command} on {key}"),
            Some((command, None)) => format!("{command} on one of {}", keys.join(", ")),
            None => format!("a command on one of {}", keys.join(", ")),
        };
        format!("NOPERM the user may not run {what} (in the script; Redis said: {reason})")
    } else if code.as_deref() == Some("NOPERM") {
        format!("{reason} ({sent} with the keys {})", keys.join(", "))
    } else {
        return Error::Redis {
            server,
            op,
            reason,
            code,
        };
    };
    Error::Redis {
        server,
        op,
        reason,
        code: Some("NOPERM".into()),
    }
}

/// The command (upper case) and, when it can be told, the key of the script line that an
/// error names (`@user_script:LINE`), or that the script itself named (`[COMMAND KEY]` at
/// the end, from a script that ran its commands under pcall).
fn denied_call(source: &str, reason: &str, keys: &[String]) -> Option<(String, Option<String>)> {
    if let Some((_, named)) = reason.strip_suffix(']').and_then(|r| r.rsplit_once(" [")) {
        if let Some((command, key)) = named.split_once(' ') {
            return Some((command.to_string(), Some(key.to_string())));
        }
    }
    let at = reason.find("@user_script:")? + "@user_script:".len();
    let digits: String = reason[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    let line = source
        .lines()
        .nth(digits.parse::<usize>().ok()?.checked_sub(1)?)?;
    let call = line.find("call('")? + "call('".len();
    let command = line[call..].split('\'').next()?.to_ascii_uppercase();
    let arg = line[call..]
        .split_once(',')
        .map(|(_, rest)| rest.trim_start())
        .unwrap_or("");
    let key_index = |text: &str| -> Option<usize> {
        let n = text
            .strip_prefix("KEYS[")?
            .split(']')
            .next()?
            .parse::<usize>()
            .ok()?;
        n.checked_sub(1)
    };
    let index = match key_index(arg) {
        Some(i) => Some(i),
        // lib.lua's check(key, ...): the first key a script checks is the first it reads.
        None => source.split("check(").skip(1).find_map(key_index),
    };
    Some((command, index.and_then(|i| keys.get(i).cloned())))
}

/// Sends several calls in one round trip. Each call's own result comes back; a call that
/// met NOSCRIPT is run again alone after loading its script (the others are not repeated).
/// An error of the link fails the whole batch. Calls that run after a command of their own
/// ([`Lua::call_after`]) are each sent in turn instead.
pub async fn invoke_all(
    redis: &mut Redis,
    calls: &[Call<'_>],
) -> Result<Vec<Result<Value, Error>>, Error> {
    if calls.iter().any(|call| call.before.is_some()) {
        let mut out = Vec::with_capacity(calls.len());
        for call in calls {
            out.push(call.invoke(redis).await);
        }
        return Ok(out);
    }
    let mut pipe = redis::pipe();
    pipe.ignore_errors();
    for call in calls {
        pipe.add_command(call.cmd.clone());
    }
    let results: Vec<RedisResult<Value>> = match pipe.query_async(redis.conn()).await {
        Ok(v) => v,
        Err(e) => return Err(redis.error("script pipeline", e)),
    };
    let mut out = Vec::with_capacity(results.len());
    for (call, result) in calls.iter().zip(results) {
        out.push(match result {
            Ok(v) => Ok(v),
            Err(e) if is_noscript(&e) => call.invoke(redis).await,
            Err(e) => Err(call.error(redis, e)),
        });
    }
    Ok(out)
}

/// Script calls sent one after another on one connection with up to `depth` of them in
/// flight, so that the server has the next call as soon as it finishes one; replies come
/// back in the order the calls were started. A connection runs its commands in order, so the
/// calls take effect in that order. After an error no call starts until the calls in flight
/// have answered. When the server does not have a script (NOSCRIPT: a first use, a restart,
/// SCRIPT FLUSH), every call still in flight is waited for, the scripts that were missing are
/// loaded, and the calls that met NOSCRIPT are sent again in their order, before any call
/// started meanwhile: the calls take effect in the order they were started.
pub struct Window {
    redis: Redis,
    depth: usize,
    inflight: FuturesOrdered<BoxFuture<'static, Outcome>>,
    /// A call in flight met an error: set by the call itself, before anything else runs.
    stalled: Arc<AtomicBool>,
    /// An error was handed back: nothing more starts.
    failed: bool,
    /// After a NOSCRIPT: the outcomes of the calls in flight, in order, until all are in.
    reloading: Vec<Outcome>,
    /// Calls started while others wait to be sent again, or while the first transaction
    /// waits for [`check_transactions`]: sent after them.
    waiting: std::collections::VecDeque<Call<'static>>,
    /// Whether MULTI and EXEC were checked on this connection (or are being checked).
    transactions_checked: bool,
    /// The call in flight last is checking MULTI and EXEC first: nothing is sent after it
    /// until it is done.
    probing: bool,
}

enum Outcome {
    Done(Result<Value, Error>),
    NoScript(Call<'static>),
}

impl Window {
    pub fn new(redis: Redis, depth: usize) -> Window {
        Window {
            redis,
            depth: depth.max(1),
            inflight: FuturesOrdered::new(),
            stalled: Arc::new(AtomicBool::new(false)),
            failed: false,
            reloading: Vec::new(),
            waiting: std::collections::VecDeque::new(),
            transactions_checked: false,
            probing: false,
        }
    }

    /// Whether another call may start now.
    pub fn has_room(&self) -> bool {
        self.inflight.len() + self.waiting.len() < self.depth
            && !self.failed
            && !self.stalled.load(Ordering::SeqCst)
    }

    /// The server, as shown in messages.
    pub fn server(&self) -> &str {
        self.redis.server()
    }

    /// The window's connection, shared, for reads beside the calls.
    pub fn connection(&self) -> Redis {
        self.redis.clone()
    }

    /// Whether no call is in flight.
    pub fn is_empty(&self) -> bool {
        self.inflight.is_empty() && self.reloading.is_empty() && self.waiting.is_empty()
    }

    /// Starts a call after the ones already started. It is written to the connection when
    /// [`Window::next`] is next polled, after the calls started before it; while calls are
    /// being sent again after a NOSCRIPT, it waits for them.
    pub fn start(&mut self, call: Call<'static>) {
        if self.stalled.load(Ordering::SeqCst) || !self.waiting.is_empty() || self.probing {
            self.waiting.push_back(call);
        } else {
            self.send(call);
        }
    }

    fn send(&mut self, call: Call<'static>) {
        let mut redis = self.redis.clone();
        let stalled = self.stalled.clone();
        let probe = call.before.is_some() && !self.transactions_checked;
        if probe {
            self.transactions_checked = true;
            self.probing = true;
        }
        self.inflight.push_back(
            async move {
                if probe {
                    if let Err(e) = check_transactions(&mut redis).await {
                        stalled.store(true, Ordering::SeqCst);
                        return Outcome::Done(Err(e));
                    }
                }
                match call.query(&mut redis).await {
                    Ok(v) => Outcome::Done(Ok(v)),
                    Err(e) => {
                        stalled.store(true, Ordering::SeqCst);
                        if is_noscript(&e) {
                            Outcome::NoScript(call)
                        } else {
                            Outcome::Done(Err(call.error(&redis, e)))
                        }
                    }
                }
            }
            .boxed(),
        );
    }

    /// Sends the calls that wait, in order, until one of them checks MULTI and EXEC first.
    fn send_waiting(&mut self) {
        while !self.probing {
            let Some(call) = self.waiting.pop_front() else {
                break;
            };
            self.send(call);
        }
    }

    /// The reply of the oldest call in flight; `None` when none is. Cancel-safe: a reply
    /// not yet handed back stays in the window.
    pub async fn next(&mut self) -> Option<Result<Value, Error>> {
        loop {
            if self.reloading.is_empty() && !self.stalled.load(Ordering::SeqCst) && !self.probing {
                self.send_waiting();
            }
            if self.reloading.is_empty() || !self.inflight.is_empty() {
                let outcome = self.inflight.next().await;
                if self.inflight.is_empty() {
                    self.probing = false;
                }
                match outcome {
                    Some(Outcome::Done(result)) if self.reloading.is_empty() => {
                        if result.is_err() {
                            self.failed = true;
                        } else if self.inflight.is_empty() {
                            self.stalled.store(false, Ordering::SeqCst);
                        }
                        return Some(result);
                    }
                    // From the first NOSCRIPT on, every outcome waits its turn here.
                    Some(outcome) => self.reloading.push(outcome),
                    None if self.reloading.is_empty() => return None,
                    None => {}
                }
                continue;
            }
            // Nothing is in flight and nothing new was sent: load the missing scripts, then
            // send the calls again in their order (a call that did not meet NOSCRIPT keeps its
            // outcome), then the calls started meanwhile.
            let mut redis = self.redis.clone();
            let mut loaded: Vec<&'static str> = Vec::new();
            for outcome in &self.reloading {
                if let Outcome::NoScript(call) = outcome {
                    if !loaded.contains(&call.lua.name) {
                        if let Err(e) = call.lua.load(&mut redis).await {
                            self.reloading.clear();
                            self.waiting.clear();
                            self.failed = true;
                            return Some(Err(e));
                        }
                        loaded.push(call.lua.name);
                    }
                }
            }
            for outcome in std::mem::take(&mut self.reloading) {
                match outcome {
                    Outcome::NoScript(call) => self.send(call),
                    done @ Outcome::Done(_) => self.inflight.push_back(async move { done }.boxed()),
                }
            }
            self.send_waiting();
        }
    }
}

/// Checks that the user may run MULTI and EXEC, before the first transaction on a connection:
/// when MULTI is refused, Redis runs the commands meant for the transaction one by one, and
/// when EXEC is refused the connection is left inside MULTI. An empty MULTI/EXEC changes
/// nothing.
async fn check_transactions(redis: &mut Redis) -> Result<(), Error> {
    let mut pipe = redis::pipe();
    pipe.ignore_errors().cmd("MULTI").cmd("EXEC");
    let replies: Vec<RedisResult<Value>> = pipe
        .query_async(redis.conn())
        .await
        .map_err(|e| redis.error("MULTI/EXEC", e))?;
    let mut replies = replies.into_iter();
    match (replies.next(), replies.next()) {
        (Some(Ok(_)), Some(Ok(_))) => Ok(()),
        (Some(Err(e)), _) => Err(redis.error("MULTI", e)),
        (_, Some(Err(e))) => {
            let _ = redis
                .query::<Value>(&redis::cmd("DISCARD"), "DISCARD")
                .await;
            Err(redis.error("EXEC", e))
        }
        _ => Err(redis.error(
            "MULTI/EXEC",
            redis::RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "unexpected reply",
                "no reply".to_string(),
            )),
        )),
    }
}

/// A command's name, for messages.
fn command_name(cmd: &redis::Cmd) -> String {
    match cmd.args_iter().next() {
        Some(redis::Arg::Simple(name)) => String::from_utf8_lossy(name).into_owned(),
        _ => "the command".into(),
    }
}

fn is_noscript(err: &redis::RedisError) -> bool {
    err.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript)
        || err.code() == Some("NOSCRIPT")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_reads_its_keys_back_from_the_command() {
        let mut call = PUSH.call(&["q:data", "q:active"]);
        call.arg("argv1");
        assert_eq!(call.keys(), ["q:data", "q:active"]);
    }

    #[test]
    fn an_acl_refusal_inside_a_script_names_the_command_and_the_key() {
        let keys: Vec<String> = ["q:data", "q:active", "q:signal"]
            .map(String::from)
            .to_vec();
        let line = |what: &str| {
            PUSH.source()
                .lines()
                .position(|l| l.contains(what))
                .expect("the line")
                + 1
        };
        // Redis 7.0's words, and 7.2's.
        let lpush = format!(
            "ERR The user executing the script can't run this command or subcommand script: abc, on @user_script:{}.",
            line("redis.call('LPUSH'")
        );
        assert_eq!(
            denied_call(PUSH.source(), &lpush, &keys),
            Some(("LPUSH".into(), Some("q:signal".into())))
        );
        let type_ = format!(
            "ERR ACL failure in script: User w has no permissions to run the 'type' command script: abc, on @user_script:{}.",
            line("redis.call('TYPE'")
        );
        assert_eq!(
            denied_call(PUSH.source(), &type_, &keys),
            Some(("TYPE".into(), Some("q:data".into()))),
            "the first key a script checks"
        );
        let err = explain_denial(
            Error::Redis {
                server: "h:1".into(),
                op: "script push".into(),
                reason: lpush,
                code: Some("ERR".into()),
            },
            &PUSH,
            "EVALSHA of the script",
            &keys,
        );
        assert_eq!(err.code(), Some("NOPERM"));
        assert!(err.is_permanent());
        assert!(
            err.to_string().contains("may not run LPUSH on q:signal"),
            "{err}"
        );
        assert_eq!(
            denied_call(PUSH.source(), "ERR something else", &keys),
            None
        );
        assert_eq!(
            denied_call(
                PUSH_NEW.source(),
                "ERR The user executing the script can't run this command or subcommand [RPUSH q:active]",
                &keys
            ),
            Some(("RPUSH".into(), Some("q:active".into())))
        );
    }

    #[test]
    fn every_script_documents_keys_argv_and_returns() {
        for lua in all() {
            let own = lua
                .source()
                .strip_prefix(include_str!("../../lua/lib.lua"))
                .expect("lib.lua comes first");
            let header: String = own
                .lines()
                .take_while(|l| l.starts_with("--"))
                .collect::<Vec<_>>()
                .join("\n");
            for word in ["KEYS", "ARGV", "Returns"] {
                assert!(
                    header.contains(word),
                    "lua/{}.lua header lacks {word}",
                    lua.name
                );
            }
        }
    }
}
