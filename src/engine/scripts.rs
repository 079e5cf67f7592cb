//! The Lua scripts in `lua/`, one per state change, embedded in the binary. They run by
//! EVALSHA; a server that lost them (restart, SCRIPT FLUSH, failover) gets them loaded again
//! and the call is repeated, singly or inside a pipeline.

use std::sync::LazyLock;

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
        Call { lua: self, cmd }
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

/// One EVALSHA of a script, ready to run alone or in [`invoke_all`].
#[derive(Clone)]
pub struct Call<'a> {
    lua: &'a Lua,
    cmd: redis::Cmd,
}

impl Call<'_> {
    pub fn arg<T: ToRedisArgs>(&mut self, arg: T) -> &mut Self {
        self.cmd.arg(arg);
        self
    }

    /// Runs the call, loading the script first when the server does not have it.
    pub async fn invoke<T: FromRedisValue>(&self, redis: &mut Redis) -> Result<T, Error> {
        let first: RedisResult<T> = self.cmd.query_async(redis.conn()).await;
        match first {
            Ok(v) => Ok(v),
            Err(e) if is_noscript(&e) => {
                self.lua.load(redis).await?;
                let again: RedisResult<T> = self.cmd.query_async(redis.conn()).await;
                again.map_err(|e| redis.error(self.op(), e))
            }
            Err(e) => Err(redis.error(self.op(), e)),
        }
    }

    fn op(&self) -> String {
        format!("script {}", self.lua.name)
    }
}

/// Sends several calls in one round trip. Each call's own result comes back; a call that
/// met NOSCRIPT is run again alone after loading its script (the others are not repeated).
/// An error of the link fails the whole batch.
pub async fn invoke_all(
    redis: &mut Redis,
    calls: &[Call<'_>],
) -> Result<Vec<Result<Value, Error>>, Error> {
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
            Err(e) => Err(redis.error(call.op(), e)),
        });
    }
    Ok(out)
}

fn is_noscript(err: &redis::RedisError) -> bool {
    err.kind() == redis::ErrorKind::Server(redis::ServerErrorKind::NoScript)
        || err.code() == Some("NOSCRIPT")
}

#[cfg(test)]
mod tests {
    use super::*;

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
