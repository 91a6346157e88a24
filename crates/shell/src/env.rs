//! The environment a proven read-only line runs with: git configured so that nothing it reads
//! can make it run a program (hooks, fsmonitor, pagers, diff programs, credential helpers,
//! editors, signature checkers, network transports), and variables that would point programs
//! elsewhere removed.

/// Changes to the environment of a line `rein_tools::shell::is_read_only` proved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReadOnlyEnv {
    /// Variables to set.
    pub set: Vec<(String, String)>,
    /// Variables to remove.
    pub remove: Vec<String>,
}

/// Git configuration given on the command-line scope (`GIT_CONFIG_KEY_n`), which outranks
/// every configuration file. `diff.external` cannot be unset this way (an empty value would
/// be run); it, and per-driver keys (`diff.<driver>.textconv`, `filter.<driver>.*`)
/// cannot be named here; `is_read_only` refuses repositories that set them.
const GIT_OVERRIDES: &[(&str, &str)] = &[
    ("core.fsmonitor", "false"),
    ("core.hooksPath", "/dev/null"),
    ("core.pager", "cat"),
    ("core.editor", "false"),
    ("core.askPass", "false"),
    ("core.sshCommand", "false"),
    ("core.alternateRefsCommand", "false"),
    ("core.untrackedCache", "false"),
    ("sequence.editor", "false"),
    ("credential.helper", ""),
    ("gpg.program", "false"),
    ("gpg.ssh.program", "false"),
    ("gpg.x509.program", "false"),
    ("log.showSignature", "false"),
    ("protocol.allow", "never"),
    ("uploadpack.packObjectsHook", "false"),
    ("pager.status", "false"),
    ("pager.diff", "false"),
    ("pager.log", "false"),
    ("pager.show", "false"),
    ("pager.branch", "false"),
    ("pager.grep", "false"),
    ("pager.ls-files", "false"),
    ("pager.rev-parse", "false"),
];

/// Variables that would make a program run something else, write somewhere or read another
/// configuration.
const REMOVED: &[&str] = &[
    "GIT_EXTERNAL_DIFF",
    "GIT_DIFF_OPTS",
    "GIT_CONFIG_PARAMETERS",
    "GIT_CONFIG",
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_ATTR_SOURCE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_EXEC_PATH",
    "GIT_ASKPASS",
    "SSH_ASKPASS",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_EDITOR",
    "GIT_SEQUENCE_EDITOR",
    "GIT_PROXY_COMMAND",
    "GIT_TRACE",
    "GIT_TRACE2",
    "GIT_TRACE2_EVENT",
    "GIT_TRACE2_PERF",
    "GIT_TRACE_PACKET",
    "GIT_TRACE_PERFORMANCE",
    "GIT_TRACE_SETUP",
    "GIT_TRACE_CURL",
    "LESSOPEN",
    "LESSCLOSE",
    "RIPGREP_CONFIG_PATH",
    "GREP_OPTIONS",
    "BASH_ENV",
    "ENV",
    "LD_PRELOAD",
    "LD_AUDIT",
];

/// The environment for running a line that `rein_tools::shell::is_read_only` proved: git's
/// hook-like settings disabled through `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/
/// `GIT_CONFIG_VALUE_n`, pagers set to `cat`, optional index writes and lazy fetches off, and
/// the variables that redirect programs removed.
///
/// ```
/// let env = rein_shell::read_only_env();
/// assert!(env.set.contains(&("GIT_PAGER".to_string(), "cat".to_string())));
/// assert!(env.remove.contains(&"LESSOPEN".to_string()));
/// ```
pub fn read_only_env() -> ReadOnlyEnv {
    let mut set: Vec<(String, String)> = vec![
        ("GIT_CONFIG_COUNT".into(), GIT_OVERRIDES.len().to_string()),
        ("GIT_PAGER".into(), "cat".into()),
        ("PAGER".into(), "cat".into()),
        ("GIT_OPTIONAL_LOCKS".into(), "0".into()),
        ("GIT_NO_LAZY_FETCH".into(), "1".into()),
        ("GIT_TERMINAL_PROMPT".into(), "0".into()),
        ("GIT_NO_REPLACE_OBJECTS".into(), "1".into()),
    ];
    for (n, (key, value)) in GIT_OVERRIDES.iter().enumerate() {
        set.push((format!("GIT_CONFIG_KEY_{n}"), (*key).to_string()));
        set.push((format!("GIT_CONFIG_VALUE_{n}"), (*value).to_string()));
    }
    ReadOnlyEnv {
        set,
        remove: REMOVED.iter().map(|v| (*v).to_string()).collect(),
    }
}
