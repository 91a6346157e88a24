//! Notices of jobs in progress: a compaction's end and a retry's countdown.

use std::time::{Duration, Instant};

use pretty_assertions::assert_eq;
use rein_protocol::{Event, RunOutcome};

use super::tests::{app, ctrl_c, result, text};
use super::*;

#[test]
fn a_compaction_ends_with_its_event_saying_why_nothing_changed_and_the_queue_goes_on() {
    let now = Instant::now();
    let mut app = app();
    app.submit("first".into(), now);
    app.event(result(RunOutcome::Completed), now);
    app.take_committed();
    assert_eq!(app.submit("/compact".into(), now), [Action::Compact(None)]);
    assert!(app.submit("next".into(), now).is_empty(), "queued");
    let failed = Event::CompactionEnd {
        error: Some("the model returned an empty summary".into()),
    };
    assert_eq!(app.event(failed, now), [Action::Run("next".into())]);
    assert!(text(&app.take_committed()).iter().any(|l| {
        l.contains("compaction failed, nothing changed: the model returned an empty summary")
    }),);
    app.event(result(RunOutcome::Completed), now);
    app.submit("/compact".into(), now);
    assert!(
        app.event(Event::CompactionEnd { error: None }, now)
            .is_empty()
    );
    assert!(!app.is_busy());
}

#[test]
fn a_retry_wait_counts_down_on_the_status_line_and_ctrl_c_cancels_it() {
    let now = Instant::now();
    let mut app = app();
    app.submit("work".into(), now);
    app.event(Event::TurnStart { turn: 1 }, now);
    app.event(
        Event::Retry {
            attempt: 1,
            delay_ms: 60_000,
            reason: "openai-chat: rate limited (HTTP 429)".into(),
        },
        now,
    );
    let status = |app: &App, at: Instant| {
        let (lines, _) = app.live_lines(120, at);
        text(&lines).last().cloned().unwrap_or_default()
    };
    let scrollback = text(&app.take_committed()).join("\n");
    assert!(
        scrollback.contains("attempt 1 failed, retrying in 60 s: openai-chat: rate limited"),
        "{scrollback}"
    );
    let early = status(&app, now + Duration::from_millis(500));
    assert!(early.contains("retrying in 60s"), "{early}");
    let later = status(&app, now + Duration::from_secs(18));
    assert!(later.contains("retrying in 42s"), "{later}");
    assert!(later.contains("esc to cancel"), "{later}");
    assert!(app.animating(), "the countdown ticks");
    // The wait is over: the request is under way again.
    let after = status(&app, now + Duration::from_secs(61));
    assert!(!after.contains("retrying"), "{after}");
    assert!(after.contains("thinking"), "{after}");
    assert_eq!(ctrl_c(&mut app, now), [Action::Cancel]);
}
