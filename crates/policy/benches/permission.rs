//! The permission decision for one call of a 1,000-character shell line: computing the call's
//! facts (the line analysed once, its words expanded and resolved) and deciding with a
//! realistic rule set (about 60 rules). Budget: ≤ 50 µs per call.
//! Run with `cargo bench -p rein-policy --bench permission`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use rein_policy::{PermissionMode, Policy, Rule, Rules, SourcedRule};
use rein_tools::{ToolRegistry, WorkspaceGuard};

const BUDGET: Duration = Duration::from_micros(50);
const ROUNDS: usize = 5_000;

fn main() {
    let dir = tempfile::tempdir().unwrap();
    for sub in ["src", "tests", "docs"] {
        std::fs::create_dir_all(dir.path().join(sub)).unwrap();
    }
    for n in 0..50 {
        std::fs::write(dir.path().join(format!("src/file_{n}.rs")), "fn x() {}\n").unwrap();
    }
    let guard = WorkspaceGuard::new(dir.path()).unwrap();
    let rule = |text: &str| SourcedRule {
        rule: Rule::parse(text, guard.root(), None).unwrap(),
        source: "bench".into(),
    };
    let programs = [
        "cargo test",
        "cargo build",
        "cargo clippy",
        "git diff",
        "git log",
        "git status",
        "git show",
        "npm run",
        "pnpm test",
        "pytest",
        "uv run",
        "make",
        "rg",
        "grep",
        "ls",
        "cat",
        "head",
        "tail",
        "wc",
        "sort",
        "uniq",
        "cut",
        "tr",
        "jq",
        "sed -n",
        "find",
        "docker ps",
        "gh pr view",
        "gh run view",
        "python3 -m pytest",
    ];
    let mut allow: Vec<SourcedRule> = programs
        .iter()
        .map(|p| rule(&format!("Bash({p} *)")))
        .collect();
    allow.push(rule("Edit(src/**)"));
    allow.push(rule("Read"));
    let deny: Vec<SourcedRule> = [
        "Bash(rm -rf *)",
        "Bash(git push *)",
        "Bash(sudo *)",
        "Bash(curl *)",
        "Bash(wget *)",
        "Read(./.env)",
        "Read(./secrets/**)",
        "Edit(./Cargo.lock)",
        "Bash(pip install *)",
        "WebFetch",
    ]
    .iter()
    .map(|t| rule(t))
    .collect();
    let ask: Vec<SourcedRule> = ["Bash(git commit *)", "Edit(./tests/**)"]
        .iter()
        .map(|t| rule(t))
        .collect();
    let policy = Policy {
        mode: PermissionMode::Default,
        rules: Rules { allow, ask, deny },
        session_allow: Vec::new(),
    };
    rein_testkit::git_init(dir.path()).unwrap();
    // A real repository's configuration was written long before the session; one written
    // within the last two seconds is read on every call (see `shell/repo_memo.rs`).
    std::thread::sleep(Duration::from_millis(2_100));
    let registry = ToolRegistry::builtin();
    // Proven read-only (every command on the classifier's list, every path checked), and the
    // same pipeline behind a `cd`, which the rules then decide.
    let proven = long_line("ls src", |n| {
        format!(
            " && grep -n 'fn x' src/file_{n}.rs | head -5 | wc -l && git log --oneline -3 -- src/file_{n}.rs"
        )
    });
    let asking = long_line("cd src", |n| {
        format!(
            " && grep -n 'fn x' file_{n}.rs | head -5 | wc -l && git log --oneline -3 -- file_{n}.rs"
        )
    });
    let mut over = false;
    for line in [proven, asking] {
        let input = serde_json::json!({ "command": line });
        let mut times = Vec::with_capacity(ROUNDS);
        let mut verdict = None;
        for _ in 0..ROUNDS {
            let start = Instant::now();
            let facts = registry.facts("bash", &input, &guard);
            let decision = policy.decide(&facts, &guard);
            times.push(start.elapsed());
            verdict = Some(decision.verdict);
        }
        let facts = registry.facts("bash", &input, &guard);
        let facts_only = median(|| {
            let _ = registry.facts("bash", &input, &guard);
        });
        let decide_only = median(|| {
            let _ = policy.decide(&facts, &guard);
        });
        times.sort();
        let total = times[ROUNDS / 2];
        println!(
            "{}-character shell line, {:?}: median {:.1} µs (facts {:.1}, decision {:.1}), p99 {:.1} µs (budget {} µs)",
            line.len(),
            verdict.unwrap(),
            micros(total),
            micros(facts_only),
            micros(decide_only),
            micros(times[ROUNDS * 99 / 100]),
            BUDGET.as_micros()
        );
        over |= total > BUDGET;
    }
    if over {
        eprintln!("OVER BUDGET");
        std::process::exit(1);
    }
}

/// `start` followed by `part(0)`, `part(1)`… up to about 1,000 characters, whole parts only.
fn long_line(start: &str, part: impl Fn(usize) -> String) -> String {
    let mut line = start.to_string();
    for n in 0.. {
        let next = part(n);
        if line.len() + next.len() > 1_000 {
            break;
        }
        line.push_str(&next);
    }
    line
}

fn median(f: impl Fn()) -> Duration {
    let mut times: Vec<Duration> = (0..ROUNDS / 4)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn micros(d: Duration) -> f64 {
    d.as_secs_f64() * 1e6
}
