//! Prompt caching end to end: a 40-turn session through the agent loop against the mock's
//! simulation of each provider's cache. Anything that changes the prompt's prefix between
//! turns (a clock, a reordered or per-turn tool list, a re-rendered old message) fails here.

use rein_llm::ProviderKind;

use crate::session40::{self, PROMPTS, TURNS_PER_PROMPT};
use crate::support::ALL_KINDS;

/// Every request reads back all of the request before it (OpenAI: to its last 128-token step),
/// except the first one and the first after a compaction.
fn assert_prefix_stable(kind: ProviderKind, report: &session40::SessionReport) {
    for (i, pair) in report.requests.windows(2).enumerate() {
        let (before, now) = (pair[0], pair[1]);
        if report.after_compaction.contains(&(i + 1)) {
            continue;
        }
        // OpenAI caches in 128-token steps of the matched prefix, and the previous request's
        // last few tokens (the body's closing brackets) are never a prefix of the next one:
        // when its size is an exact multiple of 128, a whole step is lost.
        let slack = match kind {
            ProviderKind::Anthropic => 0,
            ProviderKind::Openai | ProviderKind::OpenaiChat => 127 + 8,
        };
        assert!(
            now.cache_read_input_tokens + slack >= before.total_input(),
            "{kind:?}: request {} read {} cached tokens but the request before it had {}: \
             the prompt's prefix changed between turns",
            i + 2,
            now.cache_read_input_tokens,
            before.total_input(),
        );
    }
}

#[tokio::test]
async fn a_forty_turn_session_reads_at_least_85_percent_of_its_input_from_the_cache() {
    for kind in ALL_KINDS {
        let report = session40::run_with(kind, None, session40::Notes::None).await;
        eprintln!("{kind:?}: last request {:?}", report.requests.last());
        assert_eq!(report.requests.len(), PROMPTS * TURNS_PER_PROMPT);
        assert!(report.after_compaction.is_empty(), "{kind:?}");
        assert_prefix_stable(kind, &report);
        let share = report.cache_read_share();
        eprintln!(
            "{kind:?} ({}): {:.1}% of input read from cache",
            report.model,
            share * 100.0
        );
        assert!(share >= 0.85, "{kind:?}: {share:.3} {:?}", report.totals);
    }
}

#[tokio::test]
async fn across_a_summary_compaction_at_least_80_percent_is_read_from_the_cache() {
    for kind in ALL_KINDS {
        let report = session40::run_with(kind, Some(8_000), session40::Notes::None).await;
        assert!(
            !report.after_compaction.is_empty(),
            "{kind:?}: no compaction"
        );
        assert_prefix_stable(kind, &report);
        let share = report.cache_read_share();
        eprintln!(
            "{kind:?}: {:.1}% of input read from cache across {} compaction(s)",
            share * 100.0,
            report.after_compaction.len()
        );
        assert!(share >= 0.80, "{kind:?}: {share:.3} {:?}", report.totals);
        // Without notes every summary is the model's.
        assert_eq!(report.from_notes, 0, "{kind:?}");
    }
}

#[tokio::test]
async fn a_session_keeping_the_task_board_compacts_from_its_notes() {
    for kind in ALL_KINDS {
        let plain = session40::run_with(kind, Some(8_000), session40::Notes::None).await;
        let noted = session40::run_with(kind, Some(8_000), session40::Notes::Board).await;
        eprintln!(
            "{kind:?}: summary compactions without notes: {} by the model; keeping the board: \
             {} from notes, {} by the model",
            plain.from_model, noted.from_notes, noted.from_model
        );
        assert!(noted.from_notes > 0, "{kind:?}: {noted:?}");
        assert_prefix_stable(kind, &noted);
    }
}
