#![allow(clippy::disallowed_methods)] // dev-only code: tests and benchmarks start real processes and read the test environment
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Local, TimeZone};
use pretty_assertions::assert_eq;

use super::*;

fn at(y: i32, mo: u32, d: u32, h: u32, mi: u32) -> DateTime<Local> {
    Local.with_ymd_and_hms(y, mo, d, h, mi, 0).single().unwrap()
}

fn fake(now: DateTime<Local>) -> (FakeClock, Schedule) {
    let clock = FakeClock::at(now);
    let schedule = Schedule::in_memory(Arc::new(clock.clone()), "test");
    (clock, schedule)
}

fn cron(expr: &str, prompt: &str) -> CronRequest {
    CronRequest {
        cron: expr.into(),
        prompt: prompt.into(),
        repeat: Repeat::Recurring,
        keep: Keep::Session,
    }
}

fn made(created: Created) -> rein_protocol::ScheduledJob {
    match created {
        Created::New(job) | Created::Renewed(job) => job,
    }
}

fn prompts(fired: Vec<Fired>) -> Vec<String> {
    fired.into_iter().map(|f| f.prompt).collect()
}

const MINUTE: Duration = Duration::from_secs(60);

#[test]
fn a_cron_job_fires_at_the_minutes_it_names_and_once_however_many_passed() {
    let (clock, schedule) = fake(at(2026, 3, 2, 10, 7));
    let job = made(schedule.create(cron("*/15 * * * *", "check")).unwrap());
    assert_eq!(job.next_fire, stamp_of(at(2026, 3, 2, 10, 15)));
    assert!(schedule.take_due().is_empty(), "10:07: nothing yet");
    clock.advance(7 * MINUTE);
    assert!(schedule.take_due().is_empty(), "10:14: nothing yet");
    clock.advance(MINUTE);
    assert_eq!(prompts(schedule.take_due()), ["check"], "10:15");
    assert!(schedule.take_due().is_empty(), "it fired once at 10:15");
    assert_eq!(
        schedule.next_fire(),
        Some(at(2026, 3, 2, 10, 30)),
        "then at 10:30"
    );
    // An hour passes while a long turn runs: it fires once, then at the next match.
    clock.set(at(2026, 3, 2, 11, 31));
    assert_eq!(prompts(schedule.take_due()), ["check"]);
    assert_eq!(schedule.next_fire(), Some(at(2026, 3, 2, 11, 45)));
}

fn stamp_of(t: DateTime<Local>) -> String {
    t.to_rfc3339_opts(chrono::SecondsFormat::Secs, false)
}

#[test]
fn weekdays_and_hours_are_local_time() {
    // 2026-03-06 is a Friday.
    let (_, schedule) = fake(at(2026, 3, 6, 10, 0));
    schedule.create(cron("0 9 * * 1-5", "standup")).unwrap();
    assert_eq!(
        schedule.next_fire(),
        Some(at(2026, 3, 9, 9, 0)),
        "Monday 9:00"
    );
}

#[test]
fn a_one_shot_job_fires_at_the_next_match_and_is_gone() {
    let (clock, schedule) = fake(at(2026, 7, 1, 12, 0));
    let mut request = cron("30 14 1 7 *", "check the deploy");
    request.repeat = Repeat::Once;
    let job = made(schedule.create(request).unwrap());
    assert!(!job.recurring);
    assert_eq!(job.expires_at, None);
    clock.set(at(2026, 7, 1, 14, 30));
    assert_eq!(prompts(schedule.take_due()), ["check the deploy"]);
    assert!(schedule.is_empty());
}

#[test]
fn a_recurring_job_fires_a_last_time_after_seven_days_and_is_deleted() {
    let start = at(2026, 3, 2, 10, 0);
    let (clock, schedule) = fake(start);
    let job = made(schedule.create(cron("0 * * * *", "poll")).unwrap());
    assert_eq!(job.expires_at, Some(stamp_of(at(2026, 3, 9, 10, 0))));
    clock.set(at(2026, 3, 9, 9, 0));
    let fired = schedule.take_due();
    assert_eq!(fired[0].expired, None, "six days and 23 hours: still alive");
    assert!(!schedule.is_empty());
    clock.set(at(2026, 3, 9, 10, 0));
    let fired = schedule.take_due();
    assert_eq!(prompts(fired.clone()), ["poll"]);
    assert!(
        fired[0].expired.as_deref().unwrap().contains("last time"),
        "{fired:?}"
    );
    assert!(schedule.is_empty(), "{:?}", schedule.jobs());
}

#[test]
fn making_the_same_job_again_renews_it() {
    let (clock, schedule) = fake(at(2026, 3, 2, 10, 0));
    let first = made(schedule.create(cron("0 * * * *", "poll")).unwrap());
    clock.advance(Duration::from_secs(6 * 86_400));
    let Created::Renewed(again) = schedule.create(cron("0 * * * *", "poll")).unwrap() else {
        panic!("not renewed");
    };
    assert_eq!(again.id, first.id);
    assert_eq!(again.expires_at, Some(stamp_of(at(2026, 3, 15, 10, 0))));
    assert_eq!(schedule.jobs().len(), 1);
    // Another prompt is another job.
    assert!(matches!(
        schedule.create(cron("0 * * * *", "other")).unwrap(),
        Created::New(_)
    ));
}

#[test]
fn a_wakeup_is_clamped_to_a_minute_to_an_hour_and_replaces_the_last() {
    let start = at(2026, 3, 2, 10, 0);
    let (_, schedule) = fake(start);
    for (asked, got) in [(5.0, 60), (90.4, 90), (10_000.0, 3600), (f64::NAN, 60)] {
        let job = schedule.wakeup(asked, "/loop check", "why").unwrap();
        assert_eq!(
            job.next_fire,
            stamp_of(start + Duration::from_secs(got)),
            "{asked}"
        );
        assert_eq!(job.kind, rein_protocol::JobKind::Wakeup);
    }
    assert_eq!(schedule.jobs().len(), 1, "one wake-up at a time");
    schedule.create(cron("0 * * * *", "poll")).unwrap();
    schedule.wakeup(60.0, "again", "").unwrap();
    assert_eq!(schedule.jobs().len(), 2, "cron jobs stay");
    assert_eq!(schedule.jobs()[0].reason, None, "an empty reason is none");
}

#[test]
fn bad_requests_are_refused_and_change_nothing() {
    let (_, schedule) = fake(at(2026, 3, 2, 10, 0));
    for bad in [
        "* * * *",
        "0 * * * * *",
        "61 * * * *",
        "0 0 31 2 *",
        "x y z w v",
        "",
    ] {
        let error = schedule.create(cron(bad, "p")).unwrap_err();
        assert!(error.to_string().contains("cron"), "{bad:?}: {error}");
    }
    assert!(matches!(
        schedule.create(cron("* * * * *", "  ")),
        Err(ScheduleError::Prompt)
    ));
    assert!(matches!(
        schedule.delete("nope"),
        Err(ScheduleError::Unknown(_))
    ));
    let mut durable = cron("* * * * *", "p");
    durable.keep = Keep::Durable;
    let error = schedule.create(durable).unwrap_err();
    assert!(error.to_string().contains("test"), "{error}");
    assert!(schedule.is_empty());
    for i in 0..MAX_JOBS {
        schedule
            .create(cron("* * * * *", &format!("p{i}")))
            .unwrap();
    }
    assert!(matches!(
        schedule.create(cron("* * * * *", "one more")),
        Err(ScheduleError::Full)
    ));
}

fn place(dir: &std::path::Path) -> DurablePlace {
    DurablePlace {
        file: dir.join("ws/.rein/scheduled_tasks.json"),
        root: dir.join("ws"),
        lock: dir.join("data/schedules/key/owner.lock"),
        wrap: None,
    }
}

#[test]
fn durable_jobs_survive_a_restart_and_one_process_runs_them() {
    let dir = tempfile::tempdir().unwrap();
    let place = place(dir.path());
    let clock = FakeClock::at(at(2026, 3, 2, 10, 0));
    let shared: SharedClock = Arc::new(clock.clone());
    let first = Schedule::durable(Arc::clone(&shared), &place);
    let notes = first.claim();
    assert_eq!(notes, Vec::<String>::new());
    let mut request = cron("0 9 * * *", "morning report");
    request.keep = Keep::Durable;
    let job = made(first.create(request).unwrap());
    first.create(cron("* * * * *", "session only")).unwrap();
    let saved: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&place.file).unwrap()).unwrap();
    assert_eq!(saved["tasks"][0]["id"], job.id.as_str());
    assert_eq!(saved["tasks"][0]["cron"], "0 9 * * *");
    assert_eq!(saved["tasks"][0]["recurring"], true);
    assert_eq!(
        saved["tasks"].as_array().unwrap().len(),
        1,
        "session jobs are not saved"
    );
    // The next session in this process (`/clear`) takes them over.
    let second = Schedule::durable(Arc::clone(&shared), &place);
    let notes = second.claim();
    assert_eq!(notes, Vec::<String>::new());
    assert_eq!(second.jobs().len(), 1);
    drop(second);
    drop(first);
    clock.advance(Duration::from_secs(86_400));
    let again = Schedule::durable(shared, &place);
    let notes = again.claim();
    assert_eq!(notes, Vec::<String>::new());
    let jobs = again.jobs();
    assert_eq!(jobs.len(), 1);
    assert_eq!(
        (jobs[0].id.as_str(), jobs[0].durable),
        (job.id.as_str(), true)
    );
    assert_eq!(jobs[0].next_fire, stamp_of(at(2026, 3, 4, 9, 0)));
    // Session jobs come and go without touching the file.
    let before = std::fs::metadata(&place.file).unwrap().modified().unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let tick = made(again.create(cron("* * * * *", "tick")).unwrap());
    clock.advance(Duration::from_secs(120));
    assert_eq!(prompts(again.take_due()), ["tick"]);
    again.delete(&tick.id).unwrap();
    assert_eq!(
        std::fs::metadata(&place.file).unwrap().modified().unwrap(),
        before
    );
    again.delete(&job.id).unwrap();
    let saved = std::fs::read_to_string(&place.file).unwrap();
    assert!(!saved.contains("morning"), "{saved}");
}

#[test]
fn another_process_running_the_jobs_keeps_them_to_itself() {
    let dir = tempfile::tempdir().unwrap();
    let place = place(dir.path());
    std::fs::create_dir_all(place.lock.parent().unwrap()).unwrap();
    std::fs::create_dir_all(place.file.parent().unwrap()).unwrap();
    std::fs::write(
        &place.file,
        format!(
            r#"{{"tasks": [{{"id": "j1", "cron": "0 9 * * *", "prompt": "p", "createdAt": {}}}]}}"#,
            at(2026, 3, 1, 0, 0).timestamp_millis()
        ),
    )
    .unwrap();
    // Another rein: a process holding the lock (`flock` of util-linux).
    let mut other = std::process::Command::new("flock")
        .arg("-o")
        .arg(&place.lock)
        .args(["sh", "-c", "echo held; read line"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(other.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    assert_eq!(line, "held\n");
    let clock: SharedClock = Arc::new(FakeClock::at(at(2026, 3, 2, 10, 0)));
    let schedule = Schedule::durable(clock, &place);
    let notes = schedule.claim();
    assert!(schedule.is_empty(), "{:?}", schedule.jobs());
    assert!(notes[0].contains("another rein session"), "{notes:?}");
    assert_eq!(schedule.claim(), Vec::<String>::new(), "said once");
    let mut request = cron("0 9 * * *", "p");
    request.keep = Keep::Durable;
    let error = schedule.create(request).unwrap_err();
    assert!(
        error.to_string().contains("another rein session"),
        "{error}"
    );
    // Once the other has gone, the next claim takes them.
    drop(other.stdin.take());
    other.wait().unwrap();
    assert_eq!(schedule.claim(), Vec::<String>::new());
    assert_eq!(schedule.jobs()[0].id, "j1");
}

#[test]
fn stale_and_broken_durable_jobs_are_left_out_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let place = place(dir.path());
    std::fs::create_dir_all(place.file.parent().unwrap()).unwrap();
    let now = at(2026, 3, 20, 10, 0);
    let ms = |t: DateTime<Local>| t.timestamp_millis();
    let file = serde_json::json!({"tasks": [
        {"id": "old", "cron": "0 * * * *", "prompt": "p", "createdAt": ms(at(2026, 3, 1, 0, 0)), "recurring": true},
        {"id": "missed", "cron": "0 9 19 3 *", "prompt": "p", "createdAt": ms(at(2026, 3, 18, 0, 0)), "recurring": false, "fireAt": ms(at(2026, 3, 19, 9, 0))},
        {"id": "bad", "cron": "nonsense", "prompt": "p", "createdAt": 0},
        {"id": "fine", "cron": "0 9 * * *", "prompt": "p", "createdAt": ms(at(2026, 3, 19, 0, 0))}
    ]});
    std::fs::write(&place.file, file.to_string()).unwrap();
    let schedule = Schedule::durable(Arc::new(FakeClock::at(now)), &place);
    let notes = schedule.claim();
    let ids: Vec<String> = schedule.jobs().into_iter().map(|j| j.id).collect();
    assert_eq!(ids, ["fine"]);
    assert_eq!(notes.len(), 3, "{notes:?}");
    assert!(notes[0].contains("old expired"), "{notes:?}");
    assert!(notes[1].contains("missed was due"), "{notes:?}");
    assert!(notes[2].contains("bad left out"), "{notes:?}");
    drop(schedule);
    // A file that is not a jobs file is left as it is; durable jobs are refused.
    std::fs::write(&place.file, "{not json").unwrap();
    let schedule = Schedule::durable(Arc::new(FakeClock::at(now)), &place);
    let notes = schedule.claim();
    assert!(notes[0].contains("not a jobs file"), "{notes:?}");
    let mut request = cron("0 9 * * *", "p");
    request.keep = Keep::Durable;
    assert!(matches!(
        schedule.create(request),
        Err(ScheduleError::NotDurable(_))
    ));
    assert_eq!(std::fs::read_to_string(&place.file).unwrap(), "{not json");
}

#[tokio::test]
async fn due_waits_for_the_clock_and_for_new_jobs() {
    let (clock, schedule) = fake(at(2026, 3, 2, 10, 0));
    let waiting = tokio::spawn({
        let schedule = schedule.clone();
        async move { schedule.due().await }
    });
    tokio::task::yield_now().await;
    schedule.wakeup(120.0, "wake", "").unwrap();
    clock.advance(MINUTE);
    tokio::task::yield_now().await;
    assert!(!waiting.is_finished(), "a minute in: not yet");
    clock.advance(MINUTE);
    let fired = tokio::time::timeout(Duration::from_secs(10), waiting)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(prompts(fired), ["wake"]);
    assert!(schedule.is_empty());
}

mod loops_tests {
    use super::{CronExpr, at};
    use crate::loops::{Loop, LoopError, parse};
    use pretty_assertions::assert_eq;

    fn every(input: &str) -> (String, String, String) {
        match parse(input, at(2026, 3, 2, 10, 17)).unwrap() {
            Loop::Every { cron, prompt, said } => (cron, prompt, said),
            other => panic!("{input}: {other:?}"),
        }
    }

    #[test]
    fn intervals_become_cron_expressions() {
        let cases = [
            (
                "5m check the deploy",
                "*/5 * * * *",
                "check the deploy",
                "every 5 minutes",
            ),
            ("every 10m look", "*/10 * * * *", "look", "every 10 minutes"),
            (
                "30s ping",
                "* * * * *",
                "ping",
                "every minute (30s rounded to what cron can step evenly)",
            ),
            (
                "7m x",
                "*/6 * * * *",
                "x",
                "every 6 minutes (7m rounded to what cron can step evenly)",
            ),
            ("1h sync", "17 * * * *", "sync", "every hour"),
            (
                "run the tests every 2 hours",
                "17 */2 * * *",
                "run the tests",
                "every 2 hours",
            ),
            (
                "90m x",
                "17 */2 * * *",
                "x",
                "every 2 hours (90m rounded to what cron can step evenly)",
            ),
            ("1d report", "17 10 * * *", "report", "every day"),
            (
                "7d weekly report",
                "17 10 * * 1",
                "weekly report",
                "every 7 days",
            ),
        ];
        for (input, cron, prompt, said) in cases {
            assert_eq!(
                every(input),
                (cron.to_string(), prompt.to_string(), said.to_string()),
                "{input}"
            );
            CronExpr::parse(cron).unwrap();
        }
    }

    #[test]
    fn without_an_interval_the_loop_is_self_paced() {
        let now = at(2026, 3, 2, 10, 17);
        assert_eq!(
            parse("check the deploy", now).unwrap(),
            Loop::SelfPaced {
                prompt: "check the deploy".into()
            }
        );
        // A number that is not an interval is part of the prompt.
        assert!(matches!(
            parse("fix 5 tests", now).unwrap(),
            Loop::SelfPaced { .. }
        ));
        assert_eq!(parse("  ", now), Err(LoopError::Empty));
        assert_eq!(parse("5m", now), Err(LoopError::Empty));
        assert!(matches!(parse("30d x", now), Err(LoopError::TooLong(_))));
    }
}

#[path = "tests_more.rs"]
mod more;
