//! The Lua scripts in `lua/`, one per state change, embedded in the binary. They run by
//! EVALSHA; a server that lost them (restart, SCRIPT FLUSH, failover) gets them loaded again
//! and the call is repeated, singly, inside a pipeline or in a [`Window`]; a single call lost
//! again between the load and the call is sent with its load in one MULTI/EXEC
//! ([`Lua::load_then`]). A script that runs in one MULTI/EXEC after plain commands
//! ([`Lua::call_after`]) cannot be repeated, since the commands ran: it is loaded before the
//! connection's first transaction, and when the server lost it all the same, it is loaded and
//! run alone after them, in one MULTI/EXEC ([`Call::after_noscript`]).
//!
//! Redis refuses a command the user may not run only when a script reaches it, and keeps
//! what the script wrote before. So before the first call of a script (with its keys) on a
//! connection, one call of `lua/rights.lua` checks every command the script runs and every
//! plain command sent with it ([`Rights`]); a consumer checks all of its commands at start.
//! The scripts check again themselves (lib.lua's `permit`) where Redis can tell without
//! running the command (7.0+, Valkey).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, LazyLock};

use futures_util::future::BoxFuture;
use futures_util::stream::FuturesOrdered;
use futures_util::{FutureExt as _, StreamExt as _};
use redis::{FromRedisValue, RedisResult, ToRedisArgs, Value};

use super::conn::Redis;
use super::error::Error;

/// What every script starts with.
const LIB: &str = include_str!("../../lua/lib.lua");

/// One embedded script.
pub struct Lua {
    pub name: &'static str,
    source: &'static str,
    script: redis::Script,
    /// Every command the script runs, with the index (from 1) in KEYS of the key it names.
    uses: Vec<(String, usize)>,
}

impl Lua {
    fn new(name: &'static str, source: &'static str) -> Self {
        Lua {
            name,
            source,
            script: redis::Script::new(source),
            uses: commands(source.strip_prefix(LIB).unwrap_or(source)),
        }
    }
}

/// Every command a script's own lines run (not its comments), with the index (from 1) in KEYS
/// of the key it names, in order: `redis.call('COMMAND', KEYS[i] ...)` and `pcall`, push_new's
/// `run('COMMAND', KEYS[i] ...)`, and lib.lua's `check(KEYS[i], ...)` (TYPE) and
/// `counter(KEYS[i], ...)` (HGET). A test checks that each script's `permit` lists them.
fn commands(own: &str) -> Vec<(String, usize)> {
    let index = |text: &str| -> Option<usize> {
        text.trim_start()
            .strip_prefix("KEYS[")?
            .split(']')
            .next()?
            .parse()
            .ok()
    };
    let mut found: Vec<(String, usize)> = Vec::new();
    let mut add = |command: &str, i: usize| {
        if !found.iter().any(|(c, j)| c == command && *j == i) {
            found.push((command.to_string(), i));
        }
    };
    for line in own.lines().filter(|l| !l.trim_start().starts_with("--")) {
        for (marker, command) in [("check(", "TYPE"), ("counter(", "HGET")] {
            for after in line.split(marker).skip(1) {
                if let Some(i) = index(after) {
                    add(command, i);
                }
            }
        }
        for marker in ["call('", "run('", "call, '"] {
            for after in line.split(marker).skip(1) {
                let Some((command, rest)) = after.split_once('\'') else {
                    continue;
                };
                if let Some(i) = index(rest.trim_start().trim_start_matches(',')) {
                    add(command, i);
                }
            }
        }
    }
    found
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
    REQUEUE_STRANDED => "requeue_stranded",
    DROP_MISSING => "drop_missing",
    RIGHTS => "rights",
    IMPORT => "import",
    IMPORT_REPLACE => "import_replace",
    MOVE_TAKE => "move_take",
    MOVE_PUBLISH => "move_publish",
    MOVE_RETURN => "move_return",
    FIND => "find",
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
    /// script's. Add ARGV with [`Call::arg`]: ARGV[1] is the number the script answers.
    ///
    /// The script goes by EVALSHA, loaded before the connection's first transaction: by
    /// EVAL, Redis would hash the script's text in every call. When the server has lost it
    /// since (a restart, a failover, SCRIPT FLUSH), the commands have run without it: see
    /// [`Call::after_noscript`].
    pub fn call_after(&self, before: Vec<(redis::Cmd, Option<i64>)>, keys: &[&str]) -> Call<'_> {
        let mut cmd = redis::cmd("EVALSHA");
        cmd.arg(self.sha()).arg(keys.len()).arg(keys);
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

    /// SCRIPT LOAD and `call` of the script in one transaction, so that the server cannot
    /// lose the script between them however often something flushes its scripts: the
    /// call's reply or error.
    async fn load_then(&self, redis: &mut Redis, call: redis::Cmd) -> RedisResult<Value> {
        let mut load = redis::cmd("SCRIPT");
        load.arg("LOAD").arg(self.source());
        let mut pipe = redis::pipe();
        pipe.atomic()
            .ignore_errors()
            .add_command(load)
            .add_command(call);
        let mut replies: Vec<Value> = pipe.query_async(redis.conn()).await?;
        match (replies.pop(), replies.pop()) {
            (_, Some(Value::ServerError(e))) | (Some(Value::ServerError(e)), _) => Err(e.into()),
            (Some(reply), Some(_)) => Ok(reply),
            _ => Err(redis::RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "unexpected reply",
                "EXEC of SCRIPT LOAD and a script answered fewer than 2 replies".to_string(),
            ))),
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

    /// Runs the call, loading the script first when the server does not have it; the
    /// first call of its script (with its keys) on this connection checks its rights first.
    pub async fn invoke<T: FromRedisValue>(&self, redis: &mut Redis) -> Result<T, Error> {
        if self.before.is_some() && !redis.rights_checked(&self.loaded_memo()) {
            check_transactions(redis).await?;
            self.load_for_transactions(redis).await?;
        }
        check_rights(redis, std::slice::from_ref(self)).await?;
        let value = self.run(redis).await?;
        redis::from_redis_value(value)
            .map_err(|e| redis.error(format!("reading the reply of {}", self.op()), e.into()))
    }

    /// Sends the call, loading the script first when the server does not have it: once
    /// plainly, then, when it was lost again between the load and the call (something
    /// flushes the server's scripts), the load and the call in one transaction.
    async fn run(&self, redis: &mut Redis) -> Result<Value, Error> {
        let mut reply = self.query(redis).await;
        if matches!(&reply, Err(e) if is_noscript(e)) {
            self.lua.load(redis).await?;
            reply = self.query(redis).await;
        }
        if self.before.is_none() && matches!(&reply, Err(e) if is_noscript(e)) {
            reply = self.lua.load_then(redis, self.cmd.clone()).await;
        }
        reply.map_err(|e| self.error(redis, e))
    }

    /// What names the call's check of rights on a connection: the script, its keys, and
    /// whether plain commands go with it.
    fn memo(&self) -> String {
        memo(self.lua.name, &self.keys(), self.before.is_some())
    }

    /// What names, among a connection's checks, the loading of the script of a call after
    /// commands (and the check of MULTI and EXEC that comes with it).
    fn loaded_memo(&self) -> String {
        format!("{}\nloaded for transactions", self.lua.name)
    }

    /// Loads the script of a call after commands, before the connection's first such call.
    async fn load_for_transactions(&self, redis: &mut Redis) -> Result<(), Error> {
        self.lua.load(redis).await?;
        redis
            .rights_checked
            .lock()
            .expect("rights lock")
            .insert(self.loaded_memo());
        Ok(())
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
        let mut reply = replies.pop().unwrap_or(Value::Nil);
        if matches!(&reply, Value::ServerError(e) if e.code() == "NOSCRIPT") {
            reply = self.after_noscript(redis, &replies).await?;
        }
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

    /// The script's reply, as it would have been, for a transaction whose commands ran but
    /// whose script the server did not have (NOSCRIPT: it lost its scripts since the script
    /// was loaded): the script is loaded and run alone, in one transaction, with ARGV[1] = 0:
    /// it checks its keys and does what it does beside the commands, and nothing else
    /// (push_new raises the signal and removes NAME:push). When a command failed (a key of
    /// another type), what the other commands wrote is removed again first, item by item,
    /// since other clients may have written since (HDEL of the fields an HSET set, LREM of
    /// the items an RPUSH pushed); the reply is then the script's error, which names the
    /// key. When the commands all ran but the script alone fails, the error is not Redis's
    /// refusal of the call: its jobs are in the queue, and a caller reads back what the call
    /// did.
    async fn after_noscript(&self, redis: &mut Redis, replies: &[Value]) -> RedisResult<Value> {
        let failed = replies.iter().find_map(|reply| match reply {
            Value::ServerError(e) => Some(e.clone()),
            _ => None,
        });
        if failed.is_some() {
            let mut undo = redis::pipe();
            undo.atomic();
            for ((cmd, _), reply) in self.before().zip(replies) {
                if !matches!(reply, Value::ServerError(_)) {
                    undo_of(cmd, &mut undo)?;
                }
            }
            if !undo.is_empty() {
                let _: Value = undo.query_async(redis.conn()).await?;
            }
        }
        let keys = self.keys();
        let mut alone = redis::cmd("EVALSHA");
        alone.arg(self.lua.sha()).arg(keys.len()).arg(&keys).arg(0);
        let result = self.lua.load_then(redis, alone).await;
        match (result, failed) {
            (Err(e), Some(_)) => Err(e),
            (Ok(_), Some(first)) => Err(first.into()),
            (Err(e), None) => Err(redis::RedisError::from((
                redis::ErrorKind::UnexpectedReturnType,
                "the commands ran without the script",
                format!(
                    "the server had lost the script {}; its commands ran, and the script run \
                     alone after them failed: {e}",
                    self.lua.name
                ),
            ))),
            (Ok(_), None) => Ok(self.argv(0).map_or(Value::Nil, |n| {
                Value::Int(
                    std::str::from_utf8(n)
                        .ok()
                        .and_then(|n| n.parse().ok())
                        .unwrap_or(0),
                )
            })),
        }
    }

    /// The script's ARGV[i + 1], read back from the command.
    fn argv(&self, i: usize) -> Option<&[u8]> {
        let args = simple_args(self.script());
        let count: usize = std::str::from_utf8(args.get(2)?).ok()?.parse().ok()?;
        args.get(3 + count + i).copied()
    }

    fn op(&self) -> String {
        format!("script {}", self.lua.name)
    }

    /// The error of this call, an ACL refusal made to name the command and the key denied.
    fn error(&self, redis: &Redis, err: redis::RedisError) -> Error {
        let sent = if self.before.is_none() {
            format!("{} of the script", command_name(&self.cmd))
        } else {
            let names: Vec<String> = self.before().map(|(c, _)| command_name(c)).collect();
            format!(
                "{} then EVALSHA of the script, in one MULTI/EXEC,",
                names.join(", ")
            )
        };
        let mut keys = self.keys();
        if std::ptr::eq(self.lua, &*RIGHTS) {
            // The last is a key no one uses (see `Rights::check`).
            keys.pop();
        }
        explain_denial(redis.error(self.op(), err), self.lua, &sent, &keys)
    }

    /// The call's KEYS, read back from the command (`EVALSHA sha numkeys key...`) only when
    /// an error needs them, so a call carries no copy of them.
    fn keys(&self) -> Vec<String> {
        let args = simple_args(self.script());
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

/// How a refusal found by a script's own check of rights ends, before `COMMAND KEY]`
/// (lib.lua's `denied`).
const CHECKED: &str = "; checked before any write [";

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
    } else if let Some((words, _)) = reason.rsplit_once(CHECKED) {
        // A script's own check (lib.lua's denied), which names the command and the key.
        format!("{words}; checked before any write: nothing was changed")
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
    let is_command = |c: &str| !c.is_empty() && c.bytes().all(|b| b.is_ascii_uppercase());
    if let Some(inside) = reason.strip_suffix(']') {
        // A key may hold spaces or brackets: the longest of the call's keys it ends with.
        let mut known: Vec<&String> = keys.iter().collect();
        known.sort_by_key(|k| std::cmp::Reverse(k.len()));
        for key in known {
            let command = inside
                .strip_suffix(key.as_str())
                .and_then(|head| head.strip_suffix(' '))
                .and_then(|head| head.rsplit_once('['))
                .map(|(_, command)| command);
            if let Some(command) = command.filter(|c| is_command(c)) {
                return Some((command.to_string(), Some(key.clone())));
            }
        }
        if let Some((_, named)) = inside.rsplit_once(" [") {
            match named.split_once(' ') {
                Some((command, key)) => return Some((command.to_string(), Some(key.to_string()))),
                None if is_command(named) => return Some((named.to_string(), None)),
                None => {}
            }
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
    check_rights(redis, calls).await?;
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
/// calls take effect in that order. A call whose rights were not checked yet on the
/// connection has them checked first, and nothing is sent after it meanwhile. After an error
/// no call starts until the calls in flight have answered. When the server does not have a
/// script (NOSCRIPT: a first use, a restart, SCRIPT FLUSH), every call still in flight is
/// waited for, the scripts that were missing are loaded, and the calls that met NOSCRIPT are
/// sent again in their order, before any call started meanwhile: the calls take effect in the
/// order they were started.
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
    /// Calls started while others wait to be sent again, or while a call waits for
    /// [`check_transactions`] or its rights: sent after them.
    waiting: std::collections::VecDeque<Call<'static>>,
    /// Whether MULTI and EXEC were checked on this connection, and the script of the first
    /// call after commands loaded (or are being).
    transactions_checked: bool,
    /// The call in flight last is checking MULTI and EXEC or its rights first: nothing is
    /// sent after it until it is done.
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
        let transactions = call.before.is_some() && !self.transactions_checked;
        let rights = !redis.rights_checked(&call.memo());
        if transactions {
            self.transactions_checked = true;
        }
        if transactions || rights {
            self.probing = true;
        }
        self.inflight.push_back(
            async move {
                if transactions {
                    let checked = match check_transactions(&mut redis).await {
                        Ok(()) => call.load_for_transactions(&mut redis).await,
                        Err(e) => Err(e),
                    };
                    if let Err(e) = checked {
                        stalled.store(true, Ordering::SeqCst);
                        return Outcome::Done(Err(e));
                    }
                }
                if rights {
                    if let Err(e) = check_rights(&mut redis, std::slice::from_ref(&call)).await {
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

    /// Sends the calls that wait, in order, until one of them checks something first.
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

/// The commands a run will send, each with the key it names, checked in one call of
/// `lua/rights.lua` before the run's first write: an error names the first command the user
/// may not run and its key, and nothing was changed. Afterwards the scripts it covers count
/// as checked on that connection, and their calls are sent without a check of their own.
pub struct Rights {
    /// The run, for messages ("consuming queue \"mail\"", "script push").
    what: String,
    /// Each command (upper case) with its key; None: a command without keys.
    uses: Vec<(String, Option<String>)>,
    /// The scripts covered, as [`Call::memo`] names them.
    scripts: Vec<String>,
}

impl Rights {
    /// Nothing to check yet; `what` names the run in messages.
    pub fn new(what: impl Into<String>) -> Rights {
        Rights {
            what: what.into(),
            uses: Vec::new(),
            scripts: Vec::new(),
        }
    }

    /// Every command of the script `lua` called by EVALSHA with these keys.
    pub fn script(&mut self, lua: &Lua, keys: &[&str]) -> &mut Self {
        let keys: Vec<String> = keys.iter().map(|k| k.to_string()).collect();
        self.add_script(lua, &keys);
        self.scripts.push(memo(lua.name, &keys, false));
        self
    }

    /// A plain command on `key` (None: a command without keys).
    pub fn command(&mut self, command: &str, key: Option<&str>) -> &mut Self {
        self.add(command, key);
        self
    }

    /// The commands of a script call and of the plain commands sent with it.
    fn call(&mut self, call: &Call<'_>) {
        self.add_script(call.lua, &call.keys());
        for (cmd, _) in call.before() {
            let key = match cmd.args_iter().nth(1) {
                Some(redis::Arg::Simple(key)) => Some(String::from_utf8_lossy(key).into_owned()),
                _ => None,
            };
            self.add(&command_name(cmd), key.as_deref());
        }
        self.scripts.push(call.memo());
    }

    fn add_script(&mut self, lua: &Lua, keys: &[String]) {
        for (command, i) in &lua.uses {
            if let Some(key) = i.checked_sub(1).and_then(|i| keys.get(i)) {
                self.add(command, Some(key));
            }
        }
    }

    fn add(&mut self, command: &str, key: Option<&str>) {
        let used = (command.to_ascii_uppercase(), key.map(str::to_string));
        if !self.uses.contains(&used) {
            self.uses.push(used);
        }
    }

    /// Checks every command in one call; Redis 6.2 needs LTRIM, HDEL and SREM besides to
    /// check the commands that write (see `lua/rights.lua`).
    pub async fn check(&self, redis: &mut Redis) -> Result<(), Error> {
        if !self.uses.is_empty() {
            let mut keys: Vec<&str> = Vec::new();
            for key in self.uses.iter().filter_map(|(_, k)| k.as_deref()) {
                if !keys.contains(&key) {
                    keys.push(key);
                }
            }
            // A key of the first key's slot (Redis Cluster) that no one uses.
            let token = uuid::Uuid::new_v4().hyphenated().to_string();
            let first = keys.first().copied().unwrap_or("qctl");
            let missing = format!("{first}:rights-probe:{token}");
            let mut all = keys.clone();
            all.push(&missing);
            let mut call = RIGHTS.call(&all);
            call.arg(format!("qctl-rights-probe-{token}"));
            for (command, key) in &self.uses {
                let index = key
                    .as_deref()
                    .and_then(|k| keys.iter().position(|x| *x == k))
                    .map_or(0, |i| i + 1);
                call.arg(command).arg(index);
            }
            match call.run(redis).await {
                Ok(_) => {}
                Err(Error::Redis {
                    server,
                    op,
                    reason,
                    code,
                }) if op == call.op() => {
                    return Err(Error::Redis {
                        server,
                        op: self.what.clone(),
                        reason,
                        code,
                    })
                }
                Err(e) => return Err(e),
            }
        }
        redis
            .rights_checked
            .lock()
            .expect("rights lock")
            .extend(self.scripts.iter().cloned());
        Ok(())
    }
}

/// How [`Call::memo`] names a script called with these keys.
/// The minutes of a queue's history (`NAME:history:<minute>`) count as one key: a call's
/// rights are checked once, not once a minute.
fn memo(name: &str, keys: &[String], after_commands: bool) -> String {
    let keys: Vec<&str> = keys
        .iter()
        .map(|k| match k.rsplit_once(":history:") {
            Some((queue, minute))
                if !minute.is_empty() && minute.bytes().all(|b| b.is_ascii_digit()) =>
            {
                &k[..queue.len() + ":history:".len()]
            }
            _ => k.as_str(),
        })
        .collect();
    let mut memo = format!("{name}\n{}", keys.join("\n"));
    if after_commands {
        memo.push_str("\nafter commands");
    }
    memo
}

impl Redis {
    /// Whether the rights of the call that [`Call::memo`] names were checked on this
    /// connection.
    fn rights_checked(&self, memo: &str) -> bool {
        self.rights_checked
            .lock()
            .expect("rights lock")
            .contains(memo)
    }
}

/// Checks, in one call, the rights of the calls whose script (with its keys) was not checked
/// on this connection yet.
async fn check_rights(redis: &mut Redis, calls: &[Call<'_>]) -> Result<(), Error> {
    let mut names: Vec<&str> = Vec::new();
    let mut rights = Rights::new("");
    for call in calls {
        if !redis.rights_checked(&call.memo()) {
            rights.call(call);
            if !names.contains(&call.lua.name) {
                names.push(call.lua.name);
            }
        }
    }
    if names.is_empty() {
        return Ok(());
    }
    rights.what = format!("script {}", names.join(", script "));
    rights.check(redis).await
}

/// What a script call that failed may have changed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Changed {
    /// Nothing: Redis refused the call, or the script stopped at its checks, which come
    /// before its first write.
    Nothing,
    /// Perhaps everything: the call may have run and its reply been lost (the connection
    /// failed, or no reply came within the response timeout), or its reply could not be
    /// read ([`Error::outcome_unknown`]).
    Unknown,
    /// Perhaps part: a command failed inside the script, and Redis keeps what the script
    /// wrote before it.
    Partly,
}

/// What the script call that failed with `err` may have changed.
pub fn changed(err: &Error) -> Changed {
    match err {
        // Redis names the line of a script where a command failed; qctl's own checks do not.
        Error::Redis { reason, .. } if reason.contains("@user_script") => Changed::Partly,
        _ if err.outcome_unknown() => Changed::Unknown,
        _ => Changed::Nothing,
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

/// Adds to `undo` what removes again, item by item, what `cmd` wrote: HDEL of the fields
/// of an HSET, LREM (from the tail) of each item of an RPUSH; the commands run before a
/// script ([`Lua::call_after`]) are of these two kinds.
fn undo_of(cmd: &redis::Cmd, undo: &mut redis::Pipeline) -> RedisResult<()> {
    let args = simple_args(cmd);
    let (Some(name), Some(key)) = (args.first(), args.get(1)) else {
        return Ok(());
    };
    if name.eq_ignore_ascii_case(b"HSET") {
        let mut hdel = redis::cmd("HDEL");
        hdel.arg(*key);
        for field in args[2..].iter().step_by(2) {
            hdel.arg(*field);
        }
        undo.add_command(hdel);
    } else if name.eq_ignore_ascii_case(b"RPUSH") {
        for item in &args[2..] {
            undo.cmd("LREM").arg(*key).arg(-1).arg(*item);
        }
    } else {
        return Err(redis::RedisError::from((
            redis::ErrorKind::UnexpectedReturnType,
            "cannot undo",
            format!("{} cannot be undone", String::from_utf8_lossy(name)),
        )));
    }
    Ok(())
}

/// A command's words, the name first.
fn simple_args(cmd: &redis::Cmd) -> Vec<&[u8]> {
    cmd.args_iter()
        .filter_map(|a| match a {
            redis::Arg::Simple(bytes) => Some(bytes),
            _ => None,
        })
        .collect()
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

    /// The pairs of a script's `permit{'COMMAND', i, ...}` calls (lib.lua).
    fn permitted(own: &str) -> Vec<(String, usize)> {
        let mut pairs = Vec::new();
        for after in own.split("permit{").skip(1) {
            let list = after.split('}').next().unwrap_or("");
            let items: Vec<&str> = list.split(',').map(str::trim).collect();
            for pair in items.chunks(2) {
                if let [command, index] = pair {
                    let command = command.trim_matches('\'').to_string();
                    pairs.push((command, index.parse().expect("a key index")));
                }
            }
        }
        pairs
    }

    #[test]
    fn every_script_checks_its_rights_before_its_first_write() {
        for lua in all().into_iter().filter(|l| l.name != "rights") {
            let own = lua.source().strip_prefix(LIB).expect("lib.lua comes first");
            let permitted = permitted(own);
            // Only the TYPE of check() and the HGET of counter() may be left out: they come
            // before any write (push_new runs after plain commands that wrote: it checks all).
            let before_writes: Vec<(String, usize)> = commands(own)
                .into_iter()
                .filter(|(c, i)| {
                    lua.name != "push_new"
                        && ((c == "TYPE" && own.contains(&format!("check(KEYS[{i}]")))
                            || (c == "HGET" && own.contains(&format!("counter(KEYS[{i}]"))))
                })
                .collect();
            for used in &lua.uses {
                assert!(
                    permitted.contains(used) || before_writes.contains(used),
                    "lua/{}.lua runs {used:?} without permitting it first",
                    lua.name
                );
            }
            for listed in &permitted {
                assert!(
                    lua.uses.contains(listed),
                    "lua/{}.lua permits {listed:?}, which it does not run",
                    lua.name
                );
            }
            assert!(!lua.uses.is_empty(), "lua/{}.lua", lua.name);
        }
    }

    /// The commands lua/rights.lua can check on Redis 6.2, without acl_check_cmd.
    fn checkable_on_6_2() -> Vec<String> {
        let source = RIGHTS
            .source()
            .strip_prefix(LIB)
            .expect("lib.lua comes first");
        let mut names = Vec::new();
        for line in source.lines().map(str::trim_start) {
            let name = line
                .strip_prefix("forms.")
                .and_then(|l| l.split_once(" = "))
                .map(|(n, _)| n)
                .or_else(|| line.split_once(" = function").map(|(n, _)| n));
            if let Some(name) = name.filter(|n| n.bytes().all(|b| b.is_ascii_uppercase())) {
                names.push(name.to_string());
            }
        }
        let unchecked = source
            .split("local unchecked = {")
            .nth(1)
            .and_then(|rest| rest.split('}').next())
            .unwrap_or("");
        for entry in unchecked.split(',') {
            names.push(entry.split('=').next().unwrap_or("").trim().to_string());
        }
        names
    }

    #[test]
    fn rights_lua_can_check_every_command_qctl_checks_on_redis_6_2() {
        let known = checkable_on_6_2();
        let mut commands: Vec<String> = all()
            .into_iter()
            .filter(|l| l.name != "rights")
            .flat_map(|l| l.uses.iter().map(|(c, _)| c.clone()))
            .collect();
        let keys = crate::engine::keys::QueueKeys::new("q");
        let consumer = crate::engine::consumers::rights(&keys, "x");
        commands.extend(consumer.uses.iter().map(|(c, _)| c.clone()));
        // The plain commands sent before push_new.
        commands.extend(["HSET".to_string(), "RPUSH".to_string()]);
        for command in commands {
            assert!(
                known.contains(&command),
                "rights.lua cannot check {command}"
            );
        }
    }

    #[test]
    fn a_consumer_checks_the_scripts_it_calls() {
        let keys = crate::engine::keys::QueueKeys::new("q");
        let rights = crate::engine::consumers::rights(&keys, "x");
        let reserve = RESERVE.call(&crate::engine::inflight::reserve_keys(
            &keys,
            "q:inflight:x",
        ));
        assert!(rights.scripts.contains(&reserve.memo()));
        let minute = keys.history(crate::engine::history::minute_of(crate::engine::now()) - 60);
        let ack = ACK.call(&[
            "q:inflight:x",
            &keys.data,
            &keys.failures,
            &keys.stats,
            &minute,
            &keys.acked,
        ]);
        assert!(rights.scripts.contains(&ack.memo()));
        assert!(rights
            .uses
            .contains(&("HINCRBY".to_string(), Some(keys.stats.clone()))));
        assert!(rights
            .uses
            .contains(&("BRPOPLPUSH".to_string(), Some(keys.signal.clone()))));
    }

    #[test]
    fn a_refusal_found_by_a_check_names_the_command_and_the_key_even_with_spaces() {
        let keys: Vec<String> = ["a [b]:data", "a [b]:active", "a [b]:signal"]
            .map(String::from)
            .to_vec();
        let reason = "NOPERM the user may not run LPUSH on a [b]:signal; checked before any write \
                      [LPUSH a [b]:signal]";
        assert_eq!(
            denied_call(PUSH.source(), reason, &keys),
            Some(("LPUSH".into(), Some("a [b]:signal".into())))
        );
        let err = explain_denial(
            Error::Redis {
                server: "h:1".into(),
                op: "script push".into(),
                reason: reason.into(),
                code: Some("NOPERM".into()),
            },
            &PUSH,
            "EVALSHA of the script",
            &keys,
        );
        assert_eq!(
            err.to_string(),
            "Redis at h:1 refused script push: NOPERM the user may not run LPUSH on a [b]:signal; \
             checked before any write: nothing was changed"
        );
        assert_eq!(changed(&err), Changed::Nothing);
        assert_eq!(
            denied_call(PUSH.source(), "NOPERM ... [TIME]", &keys),
            Some(("TIME".into(), None))
        );
    }

    #[test]
    fn what_a_failed_call_may_have_changed() {
        let redis = |reason: &str, code: Option<&str>| Error::Redis {
            server: "h:1".into(),
            op: "script ack".into(),
            reason: reason.into(),
            code: code.map(str::to_string),
        };
        assert_eq!(
            changed(&redis("WRONGTYPE q:data holds a string", Some("WRONGTYPE"))),
            Changed::Nothing
        );
        assert_eq!(
            changed(&redis("BADVALUE q:stats field completed", Some("BADVALUE"))),
            Changed::Nothing
        );
        assert_eq!(
            changed(&redis(
                "ERR hash value is not an integer script: abc, on @user_script:27.",
                Some("ERR")
            )),
            Changed::Partly
        );
        assert_eq!(
            changed(&redis("3 flags for 2 jobs", None)),
            Changed::Unknown
        );
        assert_eq!(
            changed(&Error::Unreachable {
                server: "h:1".into(),
                op: "script ack".into(),
                reason: "Connection refused (os error 111)".into()
            }),
            Changed::Unknown
        );
        // No reply within --response-timeout: the call may have run all the same.
        assert_eq!(
            changed(&Error::TimedOut {
                server: "h:1".into(),
                op: "script ack".into(),
                reason: "timed out".into()
            }),
            Changed::Unknown
        );
        assert_eq!(
            changed(&Error::Slow {
                server: "h:1".into(),
                op: "script ack".into(),
                timeout: std::time::Duration::from_millis(400),
            }),
            Changed::Unknown
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
