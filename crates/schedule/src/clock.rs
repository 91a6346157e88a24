//! The time a schedule runs on: the system's, or one a test sets and moves.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use chrono::{DateTime, Local};
use tokio::sync::watch;

/// The longest a [`SystemClock`] sleeps before its caller looks at the time again (the wall
/// clock may jump: a suspended laptop, a changed time zone).
const LONGEST_NAP: Duration = Duration::from_secs(60);

/// A future a clock returns.
pub type Sleep = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Where a schedule reads the time.
pub trait Clock: Send + Sync + std::fmt::Debug {
    /// The local time now.
    fn now(&self) -> DateTime<Local>;
    /// Resolves at `at` or before it (the caller reads [`Clock::now`] again and sleeps on
    /// when it woke early).
    fn sleep_until(&self, at: DateTime<Local>) -> Sleep;
}

/// A shared clock.
pub type SharedClock = Arc<dyn Clock>;

/// The system's clock.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> DateTime<Local> {
        Local::now()
    }

    fn sleep_until(&self, at: DateTime<Local>) -> Sleep {
        let wait = (at - Local::now())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .min(LONGEST_NAP);
        Box::pin(tokio::time::sleep(wait))
    }
}

/// A clock that stands still until a test moves it: sleepers wake when it passes their time.
#[derive(Debug, Clone)]
pub struct FakeClock {
    now: Arc<watch::Sender<DateTime<Local>>>,
}

impl FakeClock {
    /// A clock showing `now`.
    pub fn at(now: DateTime<Local>) -> Self {
        Self {
            now: Arc::new(watch::Sender::new(now)),
        }
    }

    /// Moves the clock forward by `by`, waking whoever sleeps until a time it passed.
    pub fn advance(&self, by: Duration) {
        let by = chrono::Duration::from_std(by).unwrap_or(chrono::Duration::MAX);
        self.now.send_modify(|now| *now += by);
    }

    /// Sets the clock to `now`.
    pub fn set(&self, now: DateTime<Local>) {
        self.now.send_replace(now);
    }
}

impl Clock for FakeClock {
    fn now(&self) -> DateTime<Local> {
        *self.now.borrow()
    }

    fn sleep_until(&self, at: DateTime<Local>) -> Sleep {
        let mut watch = self.now.subscribe();
        Box::pin(async move {
            // The sender lives as long as the clock; should it go, nobody moves time on.
            if watch.wait_for(|now| *now >= at).await.is_err() {
                std::future::pending::<()>().await;
            }
        })
    }
}
