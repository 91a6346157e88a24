//! Clearing tool results (micro-compaction): a result too large to keep in the window is
//! replaced by a placeholder naming the tool, its arguments and where the full output is on
//! disk, oldest first. Lossless as long as the output is saved: the model reads it again.

use rein_protocol::{ContentBlock, Message};

/// How a cleared tool result starts.
pub(crate) const CLEARED: &str = "[Cleared:";

/// Which tool results one clearing pass replaces, oldest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Clearing {
    /// The latest results kept verbatim whatever their size.
    pub keep_recent: usize,
    /// Results shorter than this are kept (the placeholder would not be much smaller).
    pub min_bytes: usize,
    /// Nothing is cleared unless the pass can free at least this many bytes: a cleared
    /// result changes the request's prefix, so clearing goes in batches worth a cache miss.
    pub min_total_bytes: usize,
    /// The pass stops once it freed this many bytes (`usize::MAX`: every eligible result).
    pub enough_bytes: usize,
}

/// What a clearing pass did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Cleared {
    /// Results replaced by a placeholder.
    pub results: usize,
    /// Bytes the transcript lost (placeholders counted).
    pub bytes: usize,
}

/// Bytes `clearing` could free at most in `transcript` (placeholders not counted).
pub fn clearable_bytes(transcript: &[Message], clearing: Clearing) -> usize {
    eligible(transcript, clearing)
        .into_iter()
        .map(|(m, b)| result_text(&transcript[m].content[b]).map_or(0, str::len))
        .sum()
}

/// Replaces tool results as `clearing` says, oldest first, by a placeholder naming the tool,
/// its arguments and where the full output is: the file an output budget already saved it in
/// (named in the result), else the path `save` stores it at (`None` when it cannot, or when
/// the tool is cheaper to call again). Already cleared results are left alone.
pub fn clear_tool_results(
    transcript: &mut [Message],
    clearing: Clearing,
    mut save: impl FnMut(&str, &str) -> Option<String>,
) -> Cleared {
    let candidates = eligible(transcript, clearing);
    let total: usize = candidates
        .iter()
        .map(|&(m, b)| result_size(&transcript[m].content[b]))
        .sum();
    let mut cleared = Cleared::default();
    if total == 0 || total < clearing.min_total_bytes {
        return cleared;
    }
    let calls = call_descriptions(transcript);
    for (m, b) in candidates {
        if cleared.bytes >= clearing.enough_bytes {
            break;
        }
        let ContentBlock::ToolResult {
            tool_use_id,
            content,
            media,
            ..
        } = &mut transcript[m].content[b]
        else {
            continue;
        };
        let (name, args) = calls
            .get(tool_use_id.as_str())
            .cloned()
            .unwrap_or_else(|| ("a tool".to_string(), String::new()));
        let placeholder = placeholder(&name, &args, content, &mut save);
        cleared.bytes += content.len().saturating_sub(placeholder.len());
        // An image or PDF read goes too: reading the file again shows it.
        cleared.bytes += media.len() * super::MEDIA_BYTES;
        media.clear();
        cleared.results += 1;
        *content = placeholder;
    }
    cleared
}

/// Positions (message, block) of the results `clearing` may replace, oldest first.
fn eligible(transcript: &[Message], clearing: Clearing) -> Vec<(usize, usize)> {
    let results: Vec<(usize, usize)> = transcript
        .iter()
        .enumerate()
        .flat_map(|(m, message)| {
            message
                .content
                .iter()
                .enumerate()
                .filter(|(_, block)| matches!(block, ContentBlock::ToolResult { .. }))
                .map(move |(b, _)| (m, b))
        })
        .collect();
    let older = results.len().saturating_sub(clearing.keep_recent);
    results
        .into_iter()
        .take(older)
        .filter(|&(m, b)| {
            let block = &transcript[m].content[b];
            result_text(block).is_some_and(|text| {
                result_size(block) >= clearing.min_bytes && !text.starts_with(CLEARED)
            })
        })
        .collect()
}

/// The bytes a result takes: its text and its media (each counted as
/// [`super::MEDIA_BYTES`]).
fn result_size(block: &ContentBlock) -> usize {
    match block {
        ContentBlock::ToolResult { content, media, .. } => {
            content.len() + media.len() * super::MEDIA_BYTES
        }
        _ => 0,
    }
}

fn result_text(block: &ContentBlock) -> Option<&str> {
    match block {
        ContentBlock::ToolResult { content, .. } => Some(content),
        _ => None,
    }
}

/// Each call's tool name and the start of its arguments, by call id.
fn call_descriptions(
    transcript: &[Message],
) -> std::collections::HashMap<String, (String, String)> {
    transcript
        .iter()
        .flat_map(|m| m.content.iter())
        .filter_map(|b| match b {
            ContentBlock::ToolUse { id, name, input } => {
                let args: String = input.to_string().chars().take(200).collect();
                Some((id.clone(), (name.clone(), args)))
            }
            _ => None,
        })
        .collect()
}

/// What replaces `content`, the result of `name` called with `args`.
fn placeholder(
    name: &str,
    args: &str,
    content: &str,
    save: &mut impl FnMut(&str, &str) -> Option<String>,
) -> String {
    let whereabouts = match saved_path(content)
        .map(str::to_string)
        .or_else(|| save(name, content))
    {
        Some(path) => format!(
            "the full output is saved in {path}; read it with read_file (offset/limit) or grep \
             if you need it again"
        ),
        None => "call the tool again if you need it".to_string(),
    };
    format!(
        "{CLEARED} the result of {name} {args} ({} bytes, {} lines) was removed to save \
         context; {whereabouts}.]",
        content.len(),
        content.lines().count()
    )
}

/// The file a result cut by the output budget names as holding its full output.
fn saved_path(content: &str) -> Option<&str> {
    let (_, rest) = content.split_once(") is saved in ")?;
    let (path, _) = rest.split_once(": read it with read_file")?;
    (!path.is_empty() && !path.contains('\n')).then_some(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn tool_turn(n: usize, output: String) -> Vec<Message> {
        vec![
            Message {
                role: rein_protocol::Role::Assistant,
                content: vec![ContentBlock::ToolUse {
                    id: format!("c{n}"),
                    name: "bash".into(),
                    input: serde_json::json!({"command": "ls"}),
                }],
            },
            Message {
                role: rein_protocol::Role::User,
                content: vec![ContentBlock::ToolResult {
                    tool_use_id: format!("c{n}"),
                    content: output,
                    is_error: false,
                    media: Vec::new(),
                }],
            },
        ]
    }

    fn results(transcript: &[Message]) -> Vec<String> {
        transcript
            .iter()
            .flat_map(|m| m.content.iter())
            .filter_map(|b| result_text(b).map(str::to_string))
            .collect()
    }

    fn session(outputs: usize) -> Vec<Message> {
        let mut t = vec![Message::user_text("task")];
        for n in 0..outputs {
            t.extend(tool_turn(n, "x".repeat(700)));
        }
        t
    }

    const ALL_OLDER_THAN_FIVE: Clearing = Clearing {
        keep_recent: 5,
        min_bytes: 500,
        min_total_bytes: 1_000,
        enough_bytes: usize::MAX,
    };

    #[test]
    fn old_large_tool_results_are_cleared_recent_ones_kept() {
        let mut t = session(8);
        let mut saved = Vec::new();
        let too_little = Clearing {
            min_total_bytes: 10_000,
            ..ALL_OLDER_THAN_FIVE
        };
        assert_eq!(clearable_bytes(&t, too_little), 2_100);
        assert_eq!(
            clear_tool_results(&mut t, too_little, |_, _| None).results,
            0,
            "too little to free"
        );
        let cleared = clear_tool_results(&mut t, ALL_OLDER_THAN_FIVE, |tool, content| {
            saved.push((tool.to_string(), content.len()));
            Some(format!("/out/{}.txt", saved.len()))
        });
        assert_eq!(cleared.results, 3);
        assert_eq!(saved, vec![("bash".to_string(), 700); 3]);
        let texts = results(&t);
        assert!(
            texts[0].starts_with(
                "[Cleared: the result of bash {\"command\":\"ls\"} (700 bytes, 1 lines)"
            ),
            "{}",
            texts[0]
        );
        assert!(texts[0].contains("saved in /out/1.txt;"), "{}", texts[0]);
        assert_eq!(cleared.bytes, 3 * (700 - texts[0].len()));
        assert_eq!(texts[3].len(), 700, "the five latest stay");
        let again = Clearing {
            min_total_bytes: 0,
            ..ALL_OLDER_THAN_FIVE
        };
        assert_eq!(
            clear_tool_results(&mut t, again, |_, _| None),
            Cleared::default(),
            "nothing twice"
        );
    }

    #[test]
    fn a_pass_stops_once_it_freed_enough_oldest_first_the_latest_too_when_asked() {
        let mut t = session(3);
        let everything = Clearing {
            keep_recent: 0,
            min_bytes: 500,
            min_total_bytes: 0,
            enough_bytes: 100,
        };
        let cleared = clear_tool_results(&mut t, everything, |_, _| None);
        assert_eq!(cleared.results, 1, "one was enough");
        let texts = results(&t);
        assert!(texts[0].starts_with(CLEARED));
        assert!(texts[0].contains("call the tool again"), "{}", texts[0]);
        assert_eq!([texts[1].len(), texts[2].len()], [700, 700]);
        let rest = Clearing {
            enough_bytes: usize::MAX,
            ..everything
        };
        assert_eq!(clear_tool_results(&mut t, rest, |_, _| None).results, 2);
        assert!(results(&t).iter().all(|r| r.starts_with(CLEARED)));
    }

    #[test]
    fn an_output_already_saved_by_the_budget_is_pointed_at_not_saved_again() {
        let cut = format!(
            "1\n2\n[... 9000 bytes omitted; the full output (13893 bytes, 3000 lines) is saved \
             in /data/out/0001-bash.txt: read it with read_file (offset/limit) or grep ...]\n\
             2999\n3000\n{}",
            "y".repeat(600)
        );
        let mut t = vec![Message::user_text("task")];
        t.extend(tool_turn(1, cut));
        let everything = Clearing {
            keep_recent: 0,
            min_bytes: 500,
            min_total_bytes: 0,
            enough_bytes: usize::MAX,
        };
        let cleared = clear_tool_results(&mut t, everything, |_, _| {
            panic!("saved already: nothing to save")
        });
        assert_eq!(cleared.results, 1);
        let text = &results(&t)[0];
        assert!(
            text.contains("the full output is saved in /data/out/0001-bash.txt; read it"),
            "{text}"
        );
    }
}
