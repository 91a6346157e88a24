//! How rein ends: a failure is one line on stderr and an exit code (0 success, 1 the run
//! failed, 2 usage or config error, 3 the turn limit, 4 the budget, 128 + N a signal).

/// A failure that ends the process: one line on stderr and an exit code.
#[derive(Debug)]
pub struct Exit {
    code: u8,
    /// The one line printed on stderr.
    pub message: String,
}

impl Exit {
    /// Usage or configuration error (exit code 2).
    pub fn usage(message: impl Into<String>) -> Self {
        Self {
            code: 2,
            message: message.into(),
        }
    }

    /// The run failed (exit code 1).
    pub fn failed(message: impl Into<String>) -> Self {
        Self {
            code: 1,
            message: message.into(),
        }
    }

    /// The run reached `--max-turns` (exit code 3); its result was already reported.
    pub fn turn_limit() -> Self {
        Self {
            code: 3,
            message: String::new(),
        }
    }

    /// The run reached `--max-budget-usd` (exit code 4); its result was already reported.
    pub fn budget() -> Self {
        Self {
            code: 4,
            message: String::new(),
        }
    }

    /// Ended by signal `signal` (the conventional status 128 + its number).
    pub fn signalled(signal: i32, message: impl Into<String>) -> Self {
        Self {
            code: u8::try_from(128 + signal).unwrap_or(1),
            message: message.into(),
        }
    }

    /// Exit code 1 with nothing more to print (the failure was already reported).
    pub fn silent_failure() -> Self {
        Self::failed(String::new())
    }

    /// The process's exit code.
    pub fn code(&self) -> u8 {
        self.code
    }
}
