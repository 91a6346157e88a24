//! The schedule's later cases: its durable file beneath its root, and fired jobs as work left.

use std::sync::Arc;

use pretty_assertions::assert_eq;

use super::*;

/// A workspace that ships `.rein` (or the jobs file) as a link to elsewhere: durable jobs are
/// neither read from nor written there.
#[test]
fn a_jobs_file_or_folder_planted_as_a_link_is_not_followed() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::os::unix::fs::symlink(&outside, dir.path().join("ws/.rein")).unwrap();
    let place = place(dir.path());
    let shared: SharedClock = Arc::new(FakeClock::at(at(2026, 3, 2, 10, 0)));
    let schedule = Schedule::durable(Arc::clone(&shared), &place);
    let notes = schedule.claim();
    assert!(
        notes.iter().any(|n| n.contains("symbolic link")),
        "{notes:?}"
    );
    let mut request = cron("0 9 * * *", "kept");
    request.keep = Keep::Durable;
    let _ = schedule.create(request);
    assert_eq!(
        std::fs::read_dir(&outside).unwrap().count(),
        0,
        "nothing written outside"
    );
    // A jobs file planted as a link to another file is not read either.
    std::fs::remove_file(dir.path().join("ws/.rein")).unwrap();
    std::fs::create_dir_all(dir.path().join("ws/.rein")).unwrap();
    std::fs::write(
        outside.join("jobs.json"),
        r#"{"tasks": [{"id": "x1", "cron": "* * * * *", "prompt": "planted", "createdAt": 0}]}"#,
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.join("jobs.json"), &place.file).unwrap();
    drop(schedule);
    let again = Schedule::durable(shared, &place);
    let notes = again.claim();
    assert!(
        again.jobs().iter().all(|j| j.prompt != "planted"),
        "{notes:?}"
    );
}

/// A one-shot job that fell due is gone from the list but not done with: whoever waits for
/// the schedule to empty (`rein exec --stay`) waits for its run too.
#[test]
fn fired_jobs_are_work_left_until_their_runs_are_said_to_end() {
    let (clock, schedule) = fake(at(2026, 7, 1, 12, 0));
    for n in 0..3 {
        let mut request = cron("1 12 * * *", &format!("once {n}"));
        request.repeat = Repeat::Once;
        schedule.create(request).unwrap();
    }
    assert!(!schedule.is_done());
    clock.set(at(2026, 7, 1, 12, 1));
    let fired = schedule.take_due();
    assert_eq!(fired.len(), 3);
    assert!(schedule.is_empty(), "none is listed any more");
    assert!(!schedule.is_done(), "three runs are still to come");
    schedule.ran();
    schedule.ran();
    assert!(!schedule.is_done());
    schedule.ran();
    assert!(schedule.is_done());
    // Said once too often, it stays done.
    schedule.ran();
    assert!(schedule.is_done());
}
