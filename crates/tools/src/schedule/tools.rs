//! `cron_create`, `cron_delete`, `cron_list` and `schedule_wakeup`: Claude Code's
//! `CronCreate`, `CronDelete`, `CronList` and `ScheduleWakeup` (their names in hooks and
//! rules) under rein's names, over the session's [`Schedule`]. The main agent's only: a
//! subagent's work ends with its run.

use crate::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use async_trait::async_trait;
use rein_protocol::{ScheduledJob, ToolSpec};
use rein_schedule::{Created, CronRequest, Keep, Repeat, Schedule};
use serde_json::{Value, json};

/// The tools' names.
const CRON_CREATE: &str = "cron_create";
const CRON_DELETE: &str = "cron_delete";
const CRON_LIST: &str = "cron_list";
const SCHEDULE_WAKEUP: &str = "schedule_wakeup";

/// `cron_create {cron, prompt, recurring?, durable?}`.
pub struct CronCreate(pub Schedule);
/// `cron_delete {id}`.
pub struct CronDelete(pub Schedule);
/// `cron_list {}`.
pub struct CronList(pub Schedule);
/// `schedule_wakeup {delaySeconds, reason, prompt}`.
pub struct ScheduleWakeup(pub Schedule);

fn text<'a>(args: &'a Value, key: &str) -> &'a str {
    args.get(key).and_then(Value::as_str).unwrap_or("")
}

fn facts(tool: &str, claude: &str, effect: Effect, summary: String) -> CallFacts {
    let mut facts = CallFacts::new(tool, claude, CallKind::Other, effect);
    facts.summary = summary;
    // The schedule changes in the order the calls were made.
    facts.serial = true;
    facts
}

fn schema(properties: Value, required: &[&str]) -> std::sync::Arc<Value> {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false
    })
    .into()
}

/// One line per job: `a1b2c3d4  */5 * * * *  recurring, session  next 2026-03-02T10:15:00+01:00  check the deploy`.
fn render(jobs: &[ScheduledJob]) -> String {
    if jobs.is_empty() {
        return "No scheduled jobs.".to_string();
    }
    jobs.iter().map(line).collect::<Vec<_>>().join("\n")
}

/// One job in one line.
fn line(job: &ScheduledJob) -> String {
    let when = match (&job.cron, job.recurring) {
        (Some(cron), true) => format!("{cron} (recurring)"),
        (Some(cron), false) => format!("{cron} (once)"),
        (None, _) => "wake-up".to_string(),
    };
    let keep = if job.durable { ", durable" } else { "" };
    let first = job.prompt.lines().next().unwrap_or("");
    let mut line = format!("{}  {when}{keep}  next {}  {first}", job.id, job.next_fire);
    if let Some(expires) = &job.expires_at {
        line.push_str(&format!("  (ends {expires})"));
    }
    line
}

#[async_trait]
impl Tool for CronCreate {
    fn lean(&self) -> crate::Lean {
        crate::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: CRON_CREATE.into(),
            description: "Runs `prompt` in this session at each match of a 5-field cron in \
                          local time (\"M H DoM Mon DoW\"), after the current turn; once with \
                          recurring: false. Recurring jobs end after 7 days; durable ones \
                          survive restarts."
                .into(),
            input_schema: schema(
                json!({
                    "cron": {"type": "string"},
                    "prompt": {"type": "string"},
                    "recurring": {"type": "boolean"},
                    "durable": {"type": "boolean"}
                }),
                &["cron", "prompt"],
            ),
        }
    }

    fn effect(&self, args: &Value) -> Effect {
        // A durable job is a file that makes rein run prompts at later starts.
        match args.get("durable").and_then(Value::as_bool) {
            Some(true) => Effect::Mutating,
            _ => Effect::ReadOnly,
        }
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let summary = format!("{}  {}", text(args, "cron"), text(args, "prompt"));
        facts(CRON_CREATE, "CronCreate", self.effect(args), summary)
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let flag =
            |key: &str, default: bool| args.get(key).and_then(Value::as_bool).unwrap_or(default);
        let request = CronRequest {
            cron: text(&args, "cron").to_string(),
            prompt: text(&args, "prompt").to_string(),
            repeat: match flag("recurring", true) {
                true => Repeat::Recurring,
                false => Repeat::Once,
            },
            keep: match flag("durable", false) {
                true => Keep::Durable,
                false => Keep::Session,
            },
        };
        match self.0.create(request) {
            Ok(Created::New(job)) => ToolOutput::ok(format!(
                "Scheduled job {}: {}. Next run {}.",
                job.id,
                describe(&job),
                job.next_fire
            )),
            Ok(Created::Renewed(job)) => ToolOutput::ok(format!(
                "Job {} was already scheduled: renewed, it now ends {}. Next run {}.",
                job.id,
                job.expires_at.as_deref().unwrap_or("after its run"),
                job.next_fire
            )),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}

/// `recurring, ends …; session-only` in words.
fn describe(job: &ScheduledJob) -> String {
    let cron = job.cron.as_deref().unwrap_or("");
    let when = match &job.expires_at {
        Some(expires) => format!("{cron}, recurring until {expires}"),
        None => format!("{cron}, once"),
    };
    let keep = match job.durable {
        true => "durable (restored when rein starts in this workspace again)",
        false => "for this session only",
    };
    format!("{when}, {keep}")
}

#[async_trait]
impl Tool for CronDelete {
    fn lean(&self) -> crate::Lean {
        crate::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: CRON_DELETE.into(),
            description: "Deletes a scheduled job.".into(),
            input_schema: schema(json!({"id": {"type": "string"}}), &["id"]),
        }
    }

    /// Deleting a job of this session only changes the session; any other (a durable job,
    /// kept in the workspace's jobs file, or one not yet claimed from it) rewrites a file, so
    /// it is mutating: plan mode does not run it.
    fn effect(&self, args: &Value) -> Effect {
        let id = text(args, "id");
        let session_only = self.0.jobs().iter().any(|job| job.id == id && !job.durable);
        match session_only {
            true => Effect::ReadOnly,
            false => Effect::Mutating,
        }
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        facts(
            CRON_DELETE,
            "CronDelete",
            self.effect(args),
            text(args, "id").to_string(),
        )
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        // The workspace's durable jobs are among those it may delete.
        self.0.claim();
        match self.0.delete(text(&args, "id")) {
            Ok(job) => ToolOutput::ok(format!("Deleted job {}.", job.id)),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}

#[async_trait]
impl Tool for CronList {
    fn lean(&self) -> crate::Lean {
        crate::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: CRON_LIST.into(),
            description: "Lists the scheduled jobs.".into(),
            input_schema: schema(json!({}), &[]),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, _args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        facts(CRON_LIST, "CronList", Effect::ReadOnly, String::new())
    }

    async fn call(&self, _args: Value, _ctx: &ToolContext) -> ToolOutput {
        // The workspace's durable jobs are listed too; what was left out of them is said.
        let notes = self.0.claim();
        let mut text = render(&self.0.jobs());
        for note in notes {
            text.push_str(&format!("\n({note})"));
        }
        ToolOutput::ok(text)
    }
}

#[async_trait]
impl Tool for ScheduleWakeup {
    fn lean(&self) -> crate::Lean {
        crate::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: SCHEDULE_WAKEUP.into(),
            description: "Continues a self-paced /loop: `prompt` (the /loop input again) runs \
                          after delaySeconds (60-3600), replacing an earlier wake-up. To end the \
                          loop, do not call it."
                .into(),
            input_schema: schema(
                json!({
                    "delaySeconds": {"type": "number"},
                    "reason": {"type": "string", "description": "shown to the user"},
                    "prompt": {"type": "string"}
                }),
                &["delaySeconds", "reason", "prompt"],
            ),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::ReadOnly
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let delay = args
            .get("delaySeconds")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let summary = format!("in {delay} s: {}", text(args, "reason"));
        facts(SCHEDULE_WAKEUP, "ScheduleWakeup", Effect::ReadOnly, summary)
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let delay = args
            .get("delaySeconds")
            .and_then(Value::as_f64)
            .unwrap_or(f64::NAN);
        match self
            .0
            .wakeup(delay, text(&args, "prompt"), text(&args, "reason"))
        {
            Ok(job) => ToolOutput::ok(format!("Wake-up {} set for {}.", job.id, job.next_fire)),
            Err(error) => ToolOutput::error(error.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;

    #[test]
    fn deleting_a_job_of_the_workspaces_file_is_not_read_only() {
        let dir = tempfile::tempdir().unwrap();
        let clock: rein_schedule::SharedClock = Arc::new(rein_schedule::SystemClock);
        let place = rein_schedule::DurablePlace {
            file: dir.path().join("scheduled_tasks.json"),
            root: dir.path().to_path_buf(),
            lock: dir.path().join("lock"),
            wrap: None,
        };
        let schedule = Schedule::durable(clock, &place);
        let create = |keep| CronRequest {
            cron: "0 9 * * *".into(),
            prompt: "look".into(),
            repeat: Repeat::Recurring,
            keep,
        };
        let id_of = |created: Created| match created {
            Created::New(job) | Created::Renewed(job) => job.id,
        };
        let session = id_of(schedule.create(create(Keep::Session)).unwrap());
        let durable = id_of(
            schedule
                .create(CronRequest {
                    prompt: "kept".into(),
                    ..create(Keep::Durable)
                })
                .unwrap(),
        );
        let tool = CronDelete(schedule);
        let effect = |id: &str| tool.effect(&json!({ "id": id }));
        assert_eq!(effect(&session), Effect::ReadOnly);
        assert_eq!(effect(&durable), Effect::Mutating);
        // An id not among the session's may be one of the file's, not yet claimed.
        assert_eq!(effect("unknown"), Effect::Mutating);
        assert_eq!(
            tool.facts(
                &json!({ "id": durable }),
                &WorkspaceGuard::new(dir.path()).unwrap()
            )
            .effect,
            Effect::Mutating
        );
    }
}
