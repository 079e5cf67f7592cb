//! `qctl dead ...`: dead jobs.

use anyhow::Context as _;
use base64::Engine as _;
use serde_json::json;

use super::Context;
use crate::cli::DeadCommand;
use crate::engine::jobs::describe_time;
use crate::engine::{dead, Error, ExitCode, QueueKeys};

pub async fn run(ctx: Context, cmd: DeadCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        DeadCommand::Show { queue, id, raw } => show(ctx, &queue, &id, raw).await,
    }
}

async fn show(mut ctx: Context, queue: &str, id: &str, raw: bool) -> anyhow::Result<ExitCode> {
    let keys = QueueKeys::new(queue);
    let mut redis = ctx.server()?.connect().await?;
    let job = dead::show(&mut redis, &keys, id)
        .await
        .with_context(|| format!("cannot read job {id:?} of queue {queue:?}"))?;
    if job.died.is_none() && job.raw.is_none() {
        return Err(Error::NothingDone(format!("no job {id:?} in queue {queue:?}")).into());
    }
    if job.died.is_none() {
        ctx.out.warn(format_args!(
            "job {id:?} is not in {} (it is not dead)",
            keys.dead
        ));
    }
    let decoded = job.job.as_ref().and_then(|r| r.as_ref().ok());
    if raw {
        let data = match (&job.job, decoded) {
            (_, Some(j)) => j.data_bytes().to_vec(),
            (Some(Err(e)), None) => {
                return Err(
                    Error::BadInput(format!("the record of job {id:?} is damaged: {e}")).into(),
                )
            }
            _ => Vec::new(),
        };
        use std::io::Write;
        let mut stdout = std::io::stdout().lock();
        stdout.write_all(&data)?;
        stdout.flush()?;
        return Ok(ExitCode::Success);
    }
    let damage = match &job.job {
        Some(Err(e)) => Some(e.to_string()),
        None => Some("no record".to_string()),
        _ => None,
    };
    if ctx.out.json {
        let data = decoded.map(|j| j.data_bytes());
        let (text, b64) = match data.map(std::str::from_utf8) {
            Some(Ok(s)) => (Some(s.to_string()), None),
            Some(Err(_)) => (
                None,
                data.map(|d| base64::engine::general_purpose::STANDARD.encode(d)),
            ),
            None => (None, None),
        };
        ctx.out.json_line(&json!({
            "id": job.id,
            "queue": queue,
            "died": job.died,
            "attempt": decoded.map(|j| j.attempt),
            "data": text,
            "data_b64": b64,
            "damaged": damage,
            "failure": job.failure,
        }))?;
    } else {
        let mut lines = vec![format!("id:       {}", job.id)];
        if let Some(t) = job.died {
            lines.push(format!("died:     {}", describe_time(t)));
        }
        if let Some(j) = decoded {
            lines.push(format!("attempts: {}", j.attempt));
            lines.push(format!("data:     {}", preview(j.data_bytes(), 2000)));
        }
        if let Some(d) = &damage {
            lines.push(format!("damaged:  {d}"));
        }
        if let Some(f) = &job.failure {
            lines.push(format!(
                "failure:  {} (attempt {}, {} ms, {})",
                f.reason,
                f.attempt,
                f.duration_ms,
                describe_time(f.time)
            ));
            if !f.stderr.is_empty() {
                lines.push("stderr (last 4 KiB):".to_string());
                for l in f.stderr.lines() {
                    lines.push(format!("  {l}"));
                }
            }
        }
        for l in lines {
            ctx.out.line(l)?;
        }
    }
    ctx.out.flush()?;
    Ok(ExitCode::Success)
}

/// Data as text when it is UTF-8 (cut at `max` characters), else marked as binary.
pub fn preview(data: &[u8], max: usize) -> String {
    match std::str::from_utf8(data) {
        Ok(s) if s.chars().count() > max => format!("{}…", s.chars().take(max).collect::<String>()),
        Ok(s) => s.to_string(),
        Err(_) => format!("<binary, {} bytes>", data.len()),
    }
}
