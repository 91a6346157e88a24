//! Keystroke-to-screen and token-to-screen latency: the time from an input (a key press, a
//! streamed token) to the finished frame, on an in-memory terminal of 120×40, after a
//! 500-turn session went through the UI. Budget: under 16 ms per input (one frame at 60 Hz).
//! Run with `cargo bench -p rein-tui --bench latency`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::time::{Duration, Instant};

use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::backend::TestBackend;
use rein_protocol::{Event, RunOutcome, Usage};
use rein_tui::history::PromptHistory;
use rein_tui::input::Input;
use rein_tui::slash::Commands;
use rein_tui::theme::Theme;
use rein_tui::{App, Screen, Status};
use serde_json::json;

const BUDGET: Duration = Duration::from_millis(16);

fn result() -> Event {
    Event::Result {
        outcome: RunOutcome::Completed,
        text: String::new(),
        turns: 1,
        usage: Usage::default(),
        cost_usd: None,
        duration_ms: 1,
        session_usage: Usage::default(),
        session_cost_usd: None,
    }
}

fn report(what: &str, mut samples: Vec<Duration>) -> bool {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    let (median, p99, max) = (at(0.5), at(0.99), at(1.0));
    let ok = p99 < BUDGET;
    println!(
        "{what}: median {:.3} ms, p99 {:.3} ms, max {:.3} ms over {} inputs (budget {} ms at p99){}",
        median.as_secs_f64() * 1e3,
        p99.as_secs_f64() * 1e3,
        max.as_secs_f64() * 1e3,
        samples.len(),
        BUDGET.as_millis(),
        if ok { "" } else { "  OVER BUDGET" }
    );
    ok
}

fn main() {
    let status = Status {
        model: "claude-sonnet-4-5".into(),
        context_window: 200_000,
        ..Status::default()
    };
    let mut app = App::new(
        Theme::COLOR,
        Commands::load(&Default::default()),
        Input::new(PromptHistory::default()),
        status,
    );
    let mut screen = Screen::new(TestBackend::new(120, 40)).unwrap();
    let now = Instant::now();

    // A long session first: 500 turns of prompt, streamed answer, tool call and result.
    for turn in 0..500 {
        app.submit(format!("step {turn}: read the next file"), now);
        for word in "Reading the **next** file with `read_file` now.\n".split_inclusive(' ') {
            app.event(Event::TextDelta { text: word.into() }, now);
        }
        let input = json!({"path": format!("src/file_{turn}.rs")});
        app.event(
            Event::ToolCallStart {
                id: format!("c{turn}"),
                name: "read_file".into(),
                summary: format!("src/file_{turn}.rs"),
                input,
            },
            now,
        );
        app.event(
            Event::ToolCallEnd {
                id: format!("c{turn}"),
                name: "read_file".into(),
                output: "1\tfn main() {}\n".repeat(40),
                is_error: false,
                duration_ms: 2,
                diff: None,
                tool_response: None,
                exit_code: None,
                sandbox: None,
            },
            now,
        );
        app.event(result(), now);
        screen.draw(&mut app, now).unwrap();
    }

    // Keystrokes: type a prompt, one frame per key.
    let text = "please refactor the parser so that it handles empty input ".repeat(20);
    let mut keys = Vec::new();
    for c in text.chars() {
        let started = Instant::now();
        app.key(KeyEvent::new(KeyCode::Char(c), KeyModifiers::NONE), now);
        screen.draw(&mut app, now).unwrap();
        keys.push(started.elapsed());
    }
    app.key(KeyEvent::new(KeyCode::Enter, KeyModifiers::NONE), now);

    // Tokens: a streamed answer with prose, a list and highlighted code, one frame per token.
    let answer = "Here is the plan:\n\n- first *fix* the `lexer`\n- then the parser\n\n```rust\nfn parse(input: &str) -> Result<Ast, Error> {\n    let tokens = lex(input)?;\n    Ok(Ast::new(tokens))\n}\n```\n\n".repeat(40);
    let mut tokens = Vec::new();
    let mut rest = answer.as_str();
    while !rest.is_empty() {
        let cut = rest.char_indices().nth(4).map_or(rest.len(), |(i, _)| i);
        let (token, tail) = rest.split_at(cut);
        rest = tail;
        let started = Instant::now();
        app.event(Event::TextDelta { text: token.into() }, now);
        screen.draw(&mut app, now).unwrap();
        tokens.push(started.elapsed());
    }

    let ok = report("keystroke-to-screen", keys) & report("token-to-screen", tokens);
    if !ok {
        std::process::exit(1);
    }
}
