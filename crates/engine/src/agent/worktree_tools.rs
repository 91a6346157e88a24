//! `enter_worktree {name?, path?}` and `exit_worktree {action, discard_changes?}` (Claude
//! Code's `EnterWorktree`/`ExitWorktree`): the tools do the git work and leave the new root
//! for the loop, which moves the session there once the batch is done — the workspace guard
//! (and with it the sandbox's writable root), checkpoints and sub-folder memory.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use rein_protocol::ToolSpec;
use rein_tools::{CallFacts, CallKind, Effect, Tool, ToolContext, ToolOutput, WorkspaceGuard};
use serde_json::{Value, json};

use super::Agent;
use crate::worktree::{self, BaseRef, Force, Worktree};

/// The tools' names.
pub(super) const ENTER: &str = "enter_worktree";
pub(super) const EXIT: &str = "exit_worktree";

/// Where the session is, as the two tools and the loop share it.
#[derive(Debug, Default)]
pub(super) struct Place {
    /// The worktree the session entered, and whether `enter_worktree` made it.
    entered: Option<(Worktree, bool)>,
    /// The root to move to once the batch is done.
    pub(super) pending: Option<PathBuf>,
    /// The session's own workspace (set when it first leaves it).
    home: Option<PathBuf>,
}

pub(super) type Shared = Arc<Mutex<Place>>;

/// `enter_worktree`.
pub(super) struct EnterWorktree {
    pub(super) place: Shared,
    pub(super) base: BaseRef,
}

/// `exit_worktree`.
pub(super) struct ExitWorktree(pub(super) Shared);

fn lock(place: &Shared) -> std::sync::MutexGuard<'_, Place> {
    place.lock().unwrap_or_else(|p| p.into_inner())
}

fn facts(tool: &str, claude: &str, summary: String) -> CallFacts {
    let mut facts = CallFacts::new(tool, claude, CallKind::Other, Effect::Mutating);
    facts.summary = summary;
    facts.serial = true;
    facts
}

#[async_trait]
impl Tool for EnterWorktree {
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: ENTER.into(),
            description: "Moves this session into a git worktree: a new one on its own branch \
                          (`name`), or an existing worktree of this repository (`path`). Only \
                          when the user or the project's instructions ask for a worktree. \
                          exit_worktree comes back."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "name": {"type": "string", "description": "Name of a new worktree"},
                    "path": {"type": "string", "description": "An existing worktree to enter"}
                },
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::Mutating
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let text = |k: &str| {
            args.get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let what = match (text("name"), text("path")) {
            (name, _) if !name.is_empty() => name,
            (_, path) => path,
        };
        facts(ENTER, "EnterWorktree", what)
    }

    async fn call(&self, args: Value, ctx: &ToolContext) -> ToolOutput {
        let text = |k: &str| args.get(k).and_then(Value::as_str).unwrap_or("").trim();
        let (name, path) = (text("name"), text("path"));
        if let Some((tree, _)) = &lock(&self.place).entered {
            return ToolOutput::error(format!(
                "the session is in the worktree {} already: exit_worktree first",
                tree.path.display()
            ));
        }
        let root = ctx.guard.root().to_path_buf();
        let entered = match (name, path) {
            (name, path) if !name.is_empty() && !path.is_empty() => {
                return ToolOutput::error("give `name` (a new worktree) or `path`, not both");
            }
            ("", path) if !path.is_empty() => {
                match worktree::find(&root, &root.join(path)) {
                    // Entering moves the workspace: only to a worktree inside it (a worktree
                    // git lists elsewhere, `../feature`, is a folder the user did not open).
                    Ok(tree) if !inside(&tree.path, &root) => {
                        return ToolOutput::error(format!(
                            "{} is outside this workspace ({}): only a worktree inside it can \
                             be entered; make one with `name`",
                            tree.path.display(),
                            root.display()
                        ));
                    }
                    found => found.map(|t| (t, false)),
                }
            }
            (name, _) => {
                let name = match name {
                    "" => worktree::fresh_name("session"),
                    name => name.to_string(),
                };
                worktree::create(&root, &name, self.base).map(|t| (t, true))
            }
        };
        let (tree, made) = match entered {
            Ok(entered) => entered,
            Err(error) => return ToolOutput::error(error.to_string()),
        };
        let text = format!(
            "Entered the worktree {} on branch {}. From your next call on the workspace is \
             there: paths are relative to it and the files of {} are out of reach until \
             exit_worktree.",
            tree.path.display(),
            if tree.branch.is_empty() {
                "(detached)"
            } else {
                &tree.branch
            },
            root.display()
        );
        let mut place = lock(&self.place);
        place.home.get_or_insert(root);
        place.pending = Some(tree.path.clone());
        place.entered = Some((tree, made));
        ToolOutput::ok(text)
    }
}

#[async_trait]
impl Tool for ExitWorktree {
    fn lean(&self) -> rein_tools::Lean {
        rein_tools::Lean::LeftOut
    }

    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: EXIT.into(),
            description: "Leaves the worktree enter_worktree moved this session into and \
                          returns to the session's workspace; `keep` leaves the worktree and \
                          its branch on disk, `remove` deletes both (refused when it has \
                          unmerged work unless discard_changes)."
                .into(),
            input_schema: json!({
                "type": "object",
                "properties": {
                    "action": {"type": "string", "enum": ["keep", "remove"]},
                    "discard_changes": {"type": "boolean"}
                },
                "required": ["action"],
                "additionalProperties": false
            })
            .into(),
        }
    }

    fn effect(&self, _args: &Value) -> Effect {
        Effect::Mutating
    }

    fn facts(&self, args: &Value, _guard: &WorkspaceGuard) -> CallFacts {
        let action = args.get("action").and_then(Value::as_str).unwrap_or("");
        facts(EXIT, "ExitWorktree", action.to_string())
    }

    async fn call(&self, args: Value, _ctx: &ToolContext) -> ToolOutput {
        let remove = args.get("action").and_then(Value::as_str) == Some("remove");
        let force = match args.get("discard_changes").and_then(Value::as_bool) {
            Some(true) => Force::Yes,
            _ => Force::No,
        };
        let mut place = lock(&self.0);
        let (Some((tree, made)), Some(home)) = (place.entered.clone(), place.home.clone()) else {
            return ToolOutput::ok(
                "The session is not in a worktree enter_worktree entered: nothing to do.",
            );
        };
        let mut text = format!("Back in {}.", home.display());
        if remove && !made {
            text.push_str(&format!(
                " The worktree {} was not made by this session, so it was kept.",
                tree.path.display()
            ));
        } else if remove {
            if let Err(error) = worktree::remove(&tree, force) {
                return ToolOutput::error(format!("{error} (the session stays in the worktree)"));
            }
            text.push_str(&format!(
                " The worktree {} and branch {} are removed.",
                tree.path.display(),
                tree.branch
            ));
        } else {
            text.push_str(&format!(
                " The worktree {} and branch {} are kept.",
                tree.path.display(),
                tree.branch
            ));
        }
        place.entered = None;
        place.pending = Some(home);
        ToolOutput::ok(text)
    }
}

/// Whether `path` is `root` or below it, both resolved.
fn inside(path: &std::path::Path, root: &std::path::Path) -> bool {
    let resolve =
        |p: &std::path::Path| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    resolve(path).starts_with(resolve(root))
}

impl Agent {
    /// Continues a stored session in the worktree it was in (`made`: by that session), when
    /// it is still there; a notice either way.
    pub(super) fn resume_in_worktree(&mut self, (path, made): &(String, bool)) {
        let (path, made) = (std::path::Path::new(path), *made);
        let Some(place) = self.toolset.place.clone() else {
            return;
        };
        let home = self.tool_ctx.guard.root().to_path_buf();
        // Only where the session itself could have gone: inside the workspace, or among the
        // repository's own worktrees rein makes.
        let ours = worktree::repository(&home)
            .map(|repo| inside(path, &repo.join(worktree::WORKTREES_FOLDER)))
            .unwrap_or(false);
        let found = match inside(path, &home) || ours {
            true => worktree::find(&home, path).map_err(|e| e.to_string()),
            false => Err("it is outside the workspace".to_string()),
        };
        let moved = found.and_then(|tree| {
            self.move_root(&tree.path).map_err(|e| e.to_string())?;
            Ok(tree)
        });
        let notice = match moved {
            Ok(tree) => {
                let text = format!(
                    "continuing in the worktree {} (branch {}), where the session was",
                    tree.path.display(),
                    tree.branch
                );
                let mut place = lock(&place);
                place.home = Some(home);
                place.entered = Some((tree, made));
                text
            }
            Err(error) => format!(
                "the session was in the worktree {}, which cannot be entered again ({error}); \
                 continuing in {}",
                path.display(),
                home.display()
            ),
        };
        self.opening.notices.push(notice);
    }

    /// Moves the session to the root a worktree tool left, once its batch is done: the
    /// guard, checkpoints and sub-folder memory follow; a note when it cannot. Whether it
    /// moved.
    pub(super) fn follow_worktree(&mut self, results: &mut [rein_protocol::ContentBlock]) -> bool {
        let Some(place) = self.toolset.place.clone() else {
            return false;
        };
        let Some(root) = lock(&place).pending.take() else {
            return false;
        };
        match self.move_root(&root) {
            Ok(()) => {
                let entered = lock(&place).entered.clone();
                self.record(rein_protocol::SessionRecord::Worktree {
                    path: entered.as_ref().map(|(t, _)| t.path.display().to_string()),
                    made: entered.is_some_and(|(_, made)| made),
                });
                true
            }
            Err(error) => {
                if let Some(rein_protocol::ContentBlock::ToolResult { content, .. }) =
                    results.last_mut()
                {
                    content.push_str(&format!(
                        "\n\n[the session could not move to {}: {error}]",
                        root.display()
                    ));
                }
                false
            }
        }
    }

    /// Makes `root` the workspace: a new guard (the same sensitive list, rules and added
    /// folders), checkpoints keyed by the new root, sub-folder memory read afresh.
    fn move_root(&mut self, root: &std::path::Path) -> Result<(), crate::EngineError> {
        let policy = self.gate.policy().clone();
        let guard = super::workspace_guard(
            root,
            &self.config.added_dirs,
            self.config.sensitive.as_ref(),
            &policy,
        )?;
        // The session's saved outputs stay where they are, and readable.
        let guard = match self.tool_ctx.budget.save_dir() {
            Some(dir) => guard
                .with_read_root(dir)
                .map_err(|e| crate::EngineError::Workspace {
                    path: dir.to_path_buf(),
                    message: e.to_string(),
                })?,
            None => guard,
        };
        let mut notices = Vec::new();
        let guard = super::setup::with_skill_dirs(guard, &self.config, &mut notices);
        self.checkpointing.store =
            super::setup::checkpoints(guard.root(), &self.config, &self.session_id);
        self.folder_memory = crate::memory::FolderMemory::default();
        self.config.workspace = root.to_path_buf();
        self.tool_ctx.guard = guard;
        Ok(())
    }
}
