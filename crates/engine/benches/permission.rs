//! The permission decision for one call of a 1,000-character shell line: computing the call's
//! facts (the line analysed once, its words expanded and resolved) and deciding with a
//! realistic rule set (about 60 rules). Budget: ≤ 50 µs per call.
//! Run with `cargo bench -p rein-engine --bench permission`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use rein_engine::permissions::{PermissionMode, Policy, Rule, Rules, SourcedRule};
use rein_tools::{ToolRegistry, WorkspaceGuard};

const BUDGET: Duration = Duration::from_micros(50);
const ROUNDS: usize = 2_000;

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
    let mut line = String::from("cd src");
    let mut n = 0;
    while line.len() < 1_000 {
        line.push_str(&format!(
            " && grep -n 'fn x' file_{n}.rs | head -5 | wc -l && git log --oneline -3 -- file_{n}.rs"
        ));
        n += 1;
    }
    let line: String = line.chars().take(1_000).collect();
    let line = line
        .rsplit_once(" &&")
        .map(|(l, _)| l.to_string())
        .unwrap_or(line);
    let registry = ToolRegistry::builtin();
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
    let mut facts_times: Vec<Duration> = (0..200)
        .map(|_| {
            let start = Instant::now();
            let _ = registry.facts("bash", &input, &guard);
            start.elapsed()
        })
        .collect();
    facts_times.sort();
    println!(
        "  of which the facts: median {:.1} µs",
        facts_times[100].as_secs_f64() * 1e6
    );
    let time = |what: &str, f: &dyn Fn()| {
        let mut t: Vec<Duration> = (0..200)
            .map(|_| {
                let start = Instant::now();
                f();
                start.elapsed()
            })
            .collect();
        t.sort();
        println!("  {what}: median {:.1} µs", t[100].as_secs_f64() * 1e6);
    };
    let analysed = rein_tools::shell::analyse(&line);
    time("analyse", &|| {
        let _ = rein_tools::shell::analyse(&line);
    });
    time("split_commands", &|| {
        let _ = rein_tools::shell::split_commands(&line);
    });
    time("is_read_only", &|| {
        let _ = rein_tools::shell::is_read_only(&analysed, &guard, guard.root());
    });
    let facts = registry.facts("bash", &input, &guard);
    time("decide", &|| {
        let _ = policy.decide(&facts, &guard);
    });
    times.sort();
    let median = times[ROUNDS / 2];
    let p99 = times[ROUNDS * 99 / 100];
    println!(
        "permission decision for a {}-character shell line ({:?}): median {:.1} µs, p99 {:.1} µs (budget {} µs)",
        line.len(),
        verdict.unwrap(),
        median.as_secs_f64() * 1e6,
        p99.as_secs_f64() * 1e6,
        BUDGET.as_micros()
    );
    if median > BUDGET {
        eprintln!("OVER BUDGET");
        std::process::exit(1);
    }
}
