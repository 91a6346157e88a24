//! `/rewind` (and Esc Esc on an empty input): pick a prompt of the session, see which files
//! would change, then restore the code, the conversation (a fork), or both.

use std::time::{Duration, Instant};

use ratatui::text::Line;
use rein_engine::RewindPoint;
use rein_engine::undo::RewindPreview;

use super::{Action, App, PickKind, Picker, Status};

/// Two presses of Esc this close together open `/rewind`.
pub(super) const DOUBLE_ESC: Duration = Duration::from_millis(800);

/// The choices of how to rewind, by id.
const BOTH: &str = "both";
const CODE: &str = "code";
const CONVERSATION: &str = "conversation";
const CANCEL: &str = "cancel";
/// Suffix of a choice that also restores files changed since rein wrote them.
const FORCED: &str = "+force";

impl App {
    /// Esc on an empty, idle input: the second within [`DOUBLE_ESC`] opens `/rewind`.
    pub(super) fn escape_twice(&mut self, now: Instant) -> Vec<Action> {
        match self.last_esc.take() {
            Some(first) if now.duration_since(first) <= DOUBLE_ESC => vec![Action::OpenRewind],
            _ => {
                self.last_esc = Some(now);
                self.notice = Some("Esc again to rewind".to_string());
                Vec::new()
            }
        }
    }

    /// Lists the session's prompts, the latest first.
    pub fn open_rewind_picker(&mut self, points: &[RewindPoint]) {
        if points.is_empty() {
            self.info("nothing to rewind: no prompt in this session yet");
            return;
        }
        let items = points
            .iter()
            .map(|p| {
                let first = p
                    .prompt
                    .lines()
                    .find(|l| !l.trim().is_empty())
                    .unwrap_or("");
                let first = crate::sanitize::clean(first).into_owned();
                (p.back.to_string(), first)
            })
            .collect();
        self.picker = Some(Picker::new(
            PickKind::RewindPoint,
            "Rewind to before which prompt",
            items,
        ));
    }

    /// Shows which files rewinding to before the `back`-th last prompt changes, and asks how
    /// to rewind (`preview` is `None` when the session keeps no checkpoints).
    pub fn open_rewind_choices(&mut self, back: usize, preview: Option<&RewindPreview>) {
        let theme = self.theme;
        let mut items = Vec::new();
        match preview {
            Some(preview) => {
                let mut lines = vec![Line::styled("  Restoring the code would:", theme.bold())];
                lines.extend(
                    preview
                        .lines
                        .iter()
                        .map(|l| Line::raw(format!("    {}", crate::sanitize::clean(l)))),
                );
                if preview.lines.is_empty() {
                    lines.push(Line::styled("    change no file", theme.dim()));
                }
                lines.extend(
                    preview
                        .notes
                        .iter()
                        .map(|n| Line::styled(format!("  note: {n}"), theme.dim())),
                );
                self.commit(lines);
                items.push((
                    BOTH.to_string(),
                    "Restore code and conversation".to_string(),
                ));
                items.push((CODE.to_string(), "Restore code only".to_string()));
                if preview.changed_since > 0 {
                    items.push((
                        format!("{BOTH}{FORCED}"),
                        format!(
                            "Restore code and conversation, also the {} file(s) changed since",
                            preview.changed_since
                        ),
                    ));
                }
            }
            None => self.info(
                "no checkpoint for this prompt (this session keeps none, or it is from before a \
                 fork): only the conversation rewinds",
            ),
        }
        items.push((
            CONVERSATION.to_string(),
            "Restore conversation only (a fork; this session stays)".to_string(),
        ));
        items.push((CANCEL.to_string(), "Never mind".to_string()));
        self.picker = Some(Picker::new(PickKind::RewindHow(back), "Rewind how", items));
    }

    /// What a picker's choice asks for.
    pub(super) fn picked(&mut self, kind: PickKind, id: String) -> Vec<Action> {
        match kind {
            PickKind::Session => vec![Action::Resume(id)],
            PickKind::Model => vec![Action::SetModel(id)],
            PickKind::Rules => self.picked_rule(&id),
            PickKind::Task => self.picked_task(id),
            PickKind::Memory => vec![Action::EditFile(id.into())],
            PickKind::Remember => self.picked_memory_file(id),
            PickKind::RewindPoint => match id.parse() {
                Ok(back) => vec![Action::PlanRewind(back)],
                Err(_) => Vec::new(),
            },
            PickKind::RewindHow(back) => {
                let (how, force) = match id.strip_suffix(FORCED) {
                    Some(how) => (how, true),
                    None => (id.as_str(), false),
                };
                let (code, conversation) = match how {
                    BOTH => (true, true),
                    CODE => (true, false),
                    CONVERSATION => (false, true),
                    _ => return Vec::new(),
                };
                vec![Action::Rewind {
                    back,
                    code,
                    conversation,
                    force,
                }]
            }
        }
    }

    /// The session was rewound: the files said, the forked session shown, and the prompt
    /// back in the input to edit and send again.
    pub fn rewound(&mut self, forked: Option<Status>, prompt: &str, files: &[String]) {
        for line in files {
            self.info(crate::sanitize::clean(line).into_owned());
        }
        if let Some(status) = forked {
            let id = status.session_id.clone();
            self.session_replaced(
                status,
                &format!("── rewound: the conversation continues as session {id} ──"),
            );
            self.input.set_text(prompt);
        }
    }
}
