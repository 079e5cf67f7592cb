//! qctl: operate and consume CurlyQ job queues in Redis.
//!
//! `engine` holds everything that talks to Redis and can be used as a library; `commands`
//! turns parsed command lines into engine calls; `output` is the terminal code of every
//! command but `top`, whose full-screen view lives in `top`; `web` is the browser view of
//! `qctl web`; `handler` runs one command for one job, `pipe` keeps long-lived handlers fed
//! over a pipe (`consume --pipe`), `reaper` kills handlers a dead consumer left, `signals`
//! turns SIGINT, SIGTERM, SIGHUP and a closed output into a request to stop at a clean
//! point, and `prometheus` writes the queues' counts in the Prometheus text format; `tips`
//! makes the tips of a usage error right.

pub mod cli;
pub mod commands;
pub mod engine;
pub mod handler;
pub mod output;
pub mod pipe;
pub mod prometheus;
pub mod reaper;
pub mod signals;
pub mod tips;
pub mod top;
pub mod web;
