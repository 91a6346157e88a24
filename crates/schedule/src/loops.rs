//! `/loop [interval] prompt`: a prompt run now and again at an interval (a recurring cron
//! job), or, without an interval, a self-paced loop the model keeps going with
//! `schedule_wakeup`. Intervals are `30s`, `5m`, `2h`, `1d` at the start (`/loop 5m check
//! the deploy`) or `every …` at the end (`/loop run the tests every 2 hours`); seconds round
//! up to a minute, and an interval cron cannot step evenly is rounded to the nearest one it
//! can (and said so).

use chrono::{DateTime, Datelike, Local, Timelike};

/// The prompt a self-paced loop's wake-up carries to stand for "go on with the loop".
pub const AUTONOMOUS: &str = "<<autonomous-loop-dynamic>>";

/// What `/loop` asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Loop {
    /// Run `prompt` now and at every match of `cron`.
    Every {
        /// The recurring job's expression.
        cron: String,
        /// What runs.
        prompt: String,
        /// The interval in words (`every 5 minutes`), with a note when it was rounded.
        said: String,
    },
    /// Run `prompt` now; the model sets each next run with `schedule_wakeup`.
    SelfPaced {
        /// What runs.
        prompt: String,
    },
}

/// Why `/loop` was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoopError {
    /// Nothing to run.
    #[error(
        "usage: /loop [interval] PROMPT — e.g. /loop 5m check the deploy, or /loop check the deploy (self-paced)"
    )]
    Empty,
    /// An interval longer than a recurring job lives.
    #[error("an interval of {0} is longer than a recurring job lives (7 days)")]
    TooLong(String),
}

/// Reads `/loop`'s arguments, `now` placing hourly and daily runs at the minute they were
/// asked.
pub fn parse(input: &str, now: DateTime<Local>) -> Result<Loop, LoopError> {
    let input = input.trim();
    let (interval, prompt) = split_interval(input);
    let prompt = prompt.trim().to_string();
    if prompt.is_empty() {
        return Err(LoopError::Empty);
    }
    match interval {
        None => Ok(Loop::SelfPaced { prompt }),
        Some((seconds, typed)) => {
            let (cron, said) = to_cron(seconds, &typed, now)?;
            Ok(Loop::Every { cron, prompt, said })
        }
    }
}

/// The interval (seconds, as typed) and the rest.
fn split_interval(input: &str) -> (Option<(u64, String)>, String) {
    let words: Vec<&str> = input.split_whitespace().collect();
    let rest =
        |skip_front: usize, skip_back: usize| words[skip_front..words.len() - skip_back].join(" ");
    // `5m prompt`, `every 5m prompt`
    let front = usize::from(
        words
            .first()
            .is_some_and(|w| w.eq_ignore_ascii_case("every")),
    );
    if let Some(seconds) = words.get(front).and_then(|w| duration(w, None)) {
        return (
            Some((seconds, words[front].to_string())),
            rest(front + 1, 0),
        );
    }
    if let (Some(n), Some(unit)) = (words.get(front), words.get(front + 1))
        && let Some(seconds) = duration(n, Some(unit))
    {
        return (Some((seconds, format!("{n} {unit}"))), rest(front + 2, 0));
    }
    // `prompt every 5m`, `prompt every 2 hours`
    let n = words.len();
    if n >= 2
        && words[n - 2].eq_ignore_ascii_case("every")
        && let Some(seconds) = duration(words[n - 1], None)
    {
        return (Some((seconds, words[n - 1].to_string())), rest(0, 2));
    }
    if n >= 3
        && words[n - 3].eq_ignore_ascii_case("every")
        && let Some(seconds) = duration(words[n - 2], Some(words[n - 1]))
    {
        return (
            Some((seconds, format!("{} {}", words[n - 2], words[n - 1]))),
            rest(0, 3),
        );
    }
    (None, input.to_string())
}

/// `5m`, or `5` and `minutes`, in seconds.
fn duration(number: &str, unit: Option<&str>) -> Option<u64> {
    let (digits, unit) = match unit {
        Some(unit) => (number, unit),
        None => {
            let split = number.find(|c: char| !c.is_ascii_digit())?;
            number.split_at(split)
        }
    };
    let n: u64 = digits.parse().ok().filter(|n| *n > 0)?;
    let scale = match unit.to_ascii_lowercase().as_str() {
        "s" | "sec" | "secs" | "second" | "seconds" => 1,
        "m" | "min" | "mins" | "minute" | "minutes" => 60,
        "h" | "hr" | "hrs" | "hour" | "hours" => 3600,
        "d" | "day" | "days" => 86_400,
        _ => return None,
    };
    n.checked_mul(scale)
}

/// The cron expression for an interval of `seconds`, and the interval in words.
fn to_cron(seconds: u64, typed: &str, now: DateTime<Local>) -> Result<(String, String), LoopError> {
    let minutes = seconds.div_ceil(60).max(1);
    let (cron, said, exact) = if minutes < 60 {
        let step = nearest(minutes, &[1, 2, 3, 4, 5, 6, 10, 12, 15, 20, 30]);
        let cron = match step {
            1 => "* * * * *".to_string(),
            _ => format!("*/{step} * * * *"),
        };
        (cron, plural(step, "minute"), step * 60 == seconds)
    } else if minutes < 24 * 60 {
        let hours = nearest((minutes + 30) / 60, &[1, 2, 3, 4, 6, 8, 12]);
        let minute = now.minute();
        let cron = match hours {
            1 => format!("{minute} * * * *"),
            _ => format!("{minute} */{hours} * * *"),
        };
        (cron, plural(hours, "hour"), hours * 3600 == seconds)
    } else {
        let days = (minutes + 12 * 60) / (24 * 60);
        if days > 7 {
            return Err(LoopError::TooLong(typed.to_string()));
        }
        let (hour, minute) = (now.hour(), now.minute());
        let cron = match days {
            1 => format!("{minute} {hour} * * *"),
            7 => format!(
                "{minute} {hour} * * {}",
                now.weekday().num_days_from_sunday()
            ),
            _ => format!("{minute} {hour} */{days} * *"),
        };
        (cron, plural(days, "day"), days * 86_400 == seconds)
    };
    let said = match exact {
        true => said,
        false => format!("{said} ({typed} rounded to what cron can step evenly)"),
    };
    Ok((cron, said))
}

/// The value of `steps` nearest to `n` (the smaller on a tie).
fn nearest(n: u64, steps: &[u64]) -> u64 {
    steps
        .iter()
        .copied()
        .min_by_key(|step| step.abs_diff(n))
        .unwrap_or(1)
}

fn plural(n: u64, unit: &str) -> String {
    match n {
        1 => format!("every {unit}"),
        _ => format!("every {n} {unit}s"),
    }
}

/// What the model is told at each run of a self-paced loop (`prompt` as the user gave it).
pub fn self_paced_prompt(prompt: &str) -> String {
    format!(
        "{prompt}\n\n<system-reminder>This is a self-paced loop (/loop without an interval). \
         When this run is done, call schedule_wakeup to run it again: delaySeconds from 60 to \
         3600 (short while something is changing, long while nothing is), a one-sentence \
         reason, and prompt \"/loop {prompt}\". To end the loop, do not call it.</system-reminder>"
    )
}

/// What the model is told at a firing of a wake-up with the [`AUTONOMOUS`] sentinel.
pub fn autonomous_prompt() -> String {
    "<system-reminder>Your wake-up fired: go on with the work of your self-paced loop. When \
     this run is done, call schedule_wakeup again to continue, or do not call it to end the \
     loop.</system-reminder>"
        .to_string()
}
