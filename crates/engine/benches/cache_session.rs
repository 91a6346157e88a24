//! What prompt caching saves on the scripted 40-turn session (`tests/session40.rs`), per
//! protocol, with and without a summary compaction (and with the model keeping the task board,
//! so compactions are built from notes: `n` from notes, `m` by the model): input tokens billed and cost (list
//! prices), against the same session sent without caching.
//! Run with `cargo bench -p rein-engine --bench cache_session`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

#[path = "../tests/session40.rs"]
mod session40;

use rein_llm::ProviderKind;
use rein_protocol::Usage;

fn main() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    println!(
        "{:<12} {:<18} {:>11} {:>9} {:>11} {:>11} {:>12} {:>12} {:>7}",
        "protocol",
        "model",
        "compaction",
        "input",
        "cache read",
        "billed in*",
        "cost cached",
        "cost plain",
        "ratio"
    );
    for kind in [
        ProviderKind::Anthropic,
        ProviderKind::Openai,
        ProviderKind::OpenaiChat,
    ] {
        let runs = [
            (None, session40::Notes::None),
            (Some(8_000), session40::Notes::None),
            (Some(8_000), session40::Notes::Board),
        ];
        for (window, notes) in runs {
            let report = runtime.block_on(session40::run_with(kind, window, notes));
            let totals = report.totals;
            let price = rein_llm::price(&report.model).unwrap();
            // Input tokens billed, each kind weighted by its rate relative to plain input.
            let billed = totals.input_tokens as f64
                + totals.cache_creation_input_tokens as f64 * price.cache_write / price.input
                + totals.cache_read_input_tokens as f64 * price.cache_read / price.input;
            let plain = Usage {
                input_tokens: totals.total_input(),
                output_tokens: totals.output_tokens,
                ..Usage::default()
            };
            let cached_cost = report.cost_usd.unwrap();
            let plain_cost = rein_llm::cost_usd(&report.model, &plain).unwrap();
            println!(
                "{:<12} {:<18} {:>11} {:>9} {:>10.1}% {:>11.0} {:>12.4} {:>12.4} {:>7.2}",
                kind.name(),
                report.model,
                if window.is_some() {
                    // Summaries from notes + by the model.
                    format!("{}n+{}m", report.from_notes, report.from_model)
                } else {
                    "none".to_string()
                },
                totals.total_input(),
                report.cache_read_share() * 100.0,
                billed,
                cached_cost,
                plain_cost,
                cached_cost / plain_cost,
            );
        }
    }
    println!("* input tokens at the plain input rate: uncached + writes and reads at their rates");
}
