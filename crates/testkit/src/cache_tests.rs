use pretty_assertions::assert_eq;

use super::*;

/// A block of about `tokens` tokens of text.
fn text(tokens: usize, fill: char) -> String {
    std::iter::repeat_n(fill, tokens * 4).collect()
}

fn anthropic_body(messages: &[(&str, String)], breakpoints: &[usize]) -> Value {
    let messages: Vec<Value> = messages
        .iter()
        .enumerate()
        .map(|(i, (role, text))| {
            let mut block = json!({"type": "text", "text": text});
            if breakpoints.contains(&i) {
                block["cache_control"] = json!({"type": "ephemeral"});
            }
            json!({"role": role, "content": [block]})
        })
        .collect();
    json!({
        "model": "claude-x",
        "system": [{"type": "text", "text": text(1_500, 's'), "cache_control": {"type": "ephemeral"}}],
        "messages": messages,
    })
}

#[test]
fn anthropic_reads_the_prefix_an_earlier_breakpoint_wrote_and_writes_up_to_the_last() {
    let cache = PromptCacheSim::default();
    let now = Instant::now();
    let first = vec![("user", text(500, 'a'))];
    let one = cache.admit(Wire::Anthropic, &anthropic_body(&first, &[0]), now);
    assert_eq!((one.read, one.input), (0, 0));
    assert!(one.creation > 2_000, "{one:?}");

    let mut second = first.clone();
    second.push(("assistant", text(100, 'b')));
    second.push(("user", text(100, 'c')));
    let two = cache.admit(Wire::Anthropic, &anthropic_body(&second, &[0, 2]), now);
    assert_eq!(
        two.read, one.creation,
        "the whole first request is read back"
    );
    assert!(two.creation > 200 && two.input == 0, "{two:?}");

    // Without a message breakpoint only system is found; the transcript is plain input.
    let three = cache.admit(Wire::Anthropic, &anthropic_body(&second, &[]), now);
    assert!(three.read > 1_500 && three.read < one.creation, "{three:?}");
    assert_eq!(three.creation, 0);
}

#[test]
fn anthropic_entries_expire_after_their_ttl() {
    let cache = PromptCacheSim::default();
    let now = Instant::now();
    let body = anthropic_body(&[("user", text(10, 'a'))], &[0]);
    let first = cache.admit(Wire::Anthropic, &body, now);
    let later = cache.admit(Wire::Anthropic, &body, now + Duration::from_secs(299));
    assert_eq!(later.read, first.creation);
    let expired = cache.admit(Wire::Anthropic, &body, now + Duration::from_secs(299 + 301));
    assert_eq!(expired.read, 0);
}

#[test]
fn anthropic_ignores_prefixes_under_the_minimum() {
    let cache = PromptCacheSim::default();
    let body = json!({"model": "m", "system": [{"type": "text", "text": "short", "cache_control": {"type": "ephemeral"}}], "messages": []});
    let now = Instant::now();
    assert_eq!(cache.admit(Wire::Anthropic, &body, now).creation, 0);
    assert_eq!(cache.admit(Wire::Anthropic, &body, now).read, 0);
}

#[test]
fn openai_reads_the_longest_seen_prefix_in_128_token_steps_from_1024() {
    let cache = PromptCacheSim::default();
    let now = Instant::now();
    let body = |messages: Vec<Value>| json!({"model": "gpt-x", "messages": messages, "prompt_cache_key": "s1"});
    let first = vec![json!({"role": "user", "content": text(2_000, 'a')})];
    let one = cache.admit(Wire::Chat, &body(first.clone()), now);
    assert_eq!(one.read, 0);
    let mut second = first.clone();
    second.push(json!({"role": "assistant", "content": text(300, 'b')}));
    let two = cache.admit(Wire::Chat, &body(second), now);
    assert_eq!(two.read % 128, 0);
    assert!(
        two.read <= one.input && one.input - two.read < 128,
        "{one:?} {two:?}"
    );
    assert_eq!(two.creation, 0);

    let small = vec![json!({"role": "user", "content": text(900, 'c')})];
    cache.admit(Wire::Chat, &body(small.clone()), now);
    assert_eq!(
        cache.admit(Wire::Chat, &body(small), now).read,
        0,
        "under 1,024 tokens"
    );

    let other_key = json!({"model": "gpt-x", "messages": first, "prompt_cache_key": "s2"});
    assert_eq!(cache.admit(Wire::Chat, &other_key, now).read, 0);
}
