//! The session's schedule as the engine uses it: the tools that change it (`tools.rs`),
//! `/loop` (a recurring job, or a self-paced loop the model keeps going with
//! `schedule_wakeup`), and what a fired job's prompt becomes. The controller runs what falls
//! due (`controller/scheduled.rs`).

mod tools;

use std::sync::Arc;

use crate::ToolRegistry;
use rein_schedule::loops::{self, Loop};
use rein_schedule::{Created, CronRequest, Fired, Keep, Repeat, Schedule};

/// The folder of rein's data folder holding each workspace's schedule lock (and the jobs of
/// an untrusted workspace), in `<workspace key>/`.
pub const SCHEDULES_FOLDER: &str = "schedules";
/// The durable jobs' file name (Claude Code's, under `.claude/`).
pub const JOBS_FILE: &str = "scheduled_tasks.json";

/// Registers the four scheduling tools over `schedule`.
pub fn register(tools: &mut ToolRegistry, schedule: &Schedule) {
    tools.register(Arc::new(tools::CronCreate(schedule.clone())));
    tools.register(Arc::new(tools::CronDelete(schedule.clone())));
    tools.register(Arc::new(tools::CronList(schedule.clone())));
    tools.register(Arc::new(tools::ScheduleWakeup(schedule.clone())));
}

/// Why `/loop` made no job.
#[derive(Debug, thiserror::Error)]
pub enum LoopRefused {
    /// Its arguments.
    #[error(transparent)]
    Arguments(#[from] loops::LoopError),
    /// The schedule would not take the job.
    #[error(transparent)]
    Schedule(#[from] rein_schedule::ScheduleError),
}

/// What the model gets for `/loop args`: the prompt of this first run, after the job it asks
/// for was made.
pub fn expand_loop(schedule: &Schedule, args: &str) -> Result<String, LoopRefused> {
    match loops::parse(args, schedule.clock().now())? {
        Loop::SelfPaced { prompt } => Ok(loops::self_paced_prompt(&prompt)),
        Loop::Every { cron, prompt, said } => {
            let made = schedule.create(CronRequest {
                cron: cron.clone(),
                prompt: prompt.clone(),
                repeat: Repeat::Recurring,
                keep: Keep::Session,
            });
            let job = match made? {
                Created::New(job) | Created::Renewed(job) => job,
            };
            Ok(format!(
                "{prompt}\n\n<system-reminder>The user made this a loop (/loop): it runs now \
                 and again {said} (cron `{cron}`, job {}, until {}; cron_delete {} ends it \
                 sooner).</system-reminder>",
                job.id,
                job.expires_at.as_deref().unwrap_or("deleted"),
                job.id
            ))
        }
    }
}

/// The prompt a fired job runs: its own, or for a self-paced loop's sentinel the reminder to
/// go on.
pub fn fired_prompt(fired: &Fired) -> String {
    match fired.prompt.trim() == loops::AUTONOMOUS {
        true => loops::autonomous_prompt(),
        false => fired.prompt.clone(),
    }
}
#[cfg(test)]
mod tests {
    use std::sync::Arc;

    #[test]
    fn the_four_definitions_stay_small() {
        let schedule = rein_schedule::Schedule::in_memory(Arc::new(rein_schedule::SystemClock), "");
        let mut tools = crate::ToolRegistry::new();
        super::register(&mut tools, &schedule);
        let specs = tools.specs();
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(
            names,
            ["cron_create", "cron_delete", "cron_list", "schedule_wakeup"]
        );
        // Sent on every request of the main agent.
        let bytes = serde_json::to_string(&specs).unwrap_or_default().len();
        assert!(bytes <= 1_300, "{bytes} bytes");
    }
}
