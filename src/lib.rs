//! qctl: operate and consume CurlyQ job queues in Redis.
//!
//! `engine` holds everything that talks to Redis and can be used as a library; `commands`
//! turns parsed command lines into engine calls; `output` is the only terminal code.

pub mod cli;
pub mod commands;
pub mod engine;
pub mod handler;
pub mod output;
