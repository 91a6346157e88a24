//! 5-field cron expressions in local time (`M H DoM Mon DoW`), parsed by `croner`.

use chrono::{DateTime, Local};
use croner::parser::{CronParser, Seconds, Year};

/// A parsed cron expression.
#[derive(Debug, Clone)]
pub struct CronExpr {
    text: String,
    cron: Box<croner::Cron>,
}

/// Why a cron expression was refused.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
#[error(
    "invalid cron expression {text:?}: {why} (5 fields in local time: \"M H DoM Mon DoW\", e.g. \"*/5 * * * *\" or \"0 9 * * 1-5\")"
)]
pub struct CronError {
    /// The expression as given.
    pub text: String,
    /// What is wrong with it.
    pub why: String,
}

impl CronExpr {
    /// Parses `text`: exactly five fields (no seconds, no years).
    pub fn parse(text: &str) -> Result<Self, CronError> {
        let text = text.trim();
        let refuse = |why: String| CronError {
            text: text.to_string(),
            why,
        };
        let fields = text.split_whitespace().count();
        if fields != 5 {
            return Err(refuse(format!("it has {fields} fields")));
        }
        let cron = CronParser::builder()
            .seconds(Seconds::Disallowed)
            .year(Year::Disallowed)
            .build()
            .parse(text)
            .map_err(|e| refuse(e.to_string()))?;
        // An expression that names no real day (`0 0 31 2 *`) would never fire.
        let probe = Local::now();
        if cron.find_next_occurrence(&probe, false).is_err() {
            return Err(refuse("it matches no time".into()));
        }
        Ok(Self {
            text: text.split_whitespace().collect::<Vec<_>>().join(" "),
            cron: Box::new(cron),
        })
    }

    /// The expression, its fields separated by one space.
    pub fn as_str(&self) -> &str {
        &self.text
    }

    /// The first minute it matches strictly after `after`; `None` when it matches none.
    pub fn next_after(&self, after: DateTime<Local>) -> Option<DateTime<Local>> {
        self.cron.find_next_occurrence(&after, false).ok()
    }

    /// The expression in English words (`At every 5th minute`).
    pub fn describe(&self) -> String {
        self.cron.describe()
    }
}
