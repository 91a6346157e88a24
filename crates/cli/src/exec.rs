//! `rein exec`: run one prompt to completion, headless. A front end of the session controller
//! like the TUI: ops in (compact, submit, cancel, shut down), the events printed, and the run's
//! end, with its exit status, read from them.

use std::io::{IsTerminal, Read, Write};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use rein_engine::Op;
use rein_protocol::{Event, RunOutcome};
use tokio_util::sync::CancellationToken;

use crate::Exit;
use crate::arg_values::{InputFormat, OutputDialect, mode_flag, sandbox_flag};
use crate::args::ExecArgs;
use crate::hosted::{Hosted, JobEnd, Sink};
use crate::input_messages::InputLine;
use crate::output::Printer;
use crate::overrides::{self, Overrides};
use crate::setup::Setup;

/// What `rein exec`'s (and the UI's) flags set over the environment and the configuration:
/// the flags read once, here; their own mistakes (an unknown mode or sandbox) are usage
/// errors naming the flag.
pub fn overrides(args: &ExecArgs) -> Result<Overrides, Exit> {
    let mode = match (&args.permission_mode, args.dangerously_skip_permissions) {
        (Some(name), _) => Some(overrides::Mode::Named(mode_flag(name)?)),
        (None, true) => Some(overrides::Mode::SkipPermissions),
        (None, false) => None,
    };
    let sandbox = args.sandbox.as_deref().map(sandbox_flag).transpose()?;
    let at = match (&args.resume, args.continue_latest) {
        (Some(id), _) => overrides::StartAt::Resume(id.clone()),
        (None, true) => overrides::StartAt::Latest,
        (None, false) => overrides::StartAt::New,
    };
    Ok(Overrides {
        cwd: args.cwd.clone(),
        route: overrides::Route {
            provider: args.provider.map(crate::arg_values::ProviderArg::kind),
            model: args.model.clone(),
            base_url: args.base_url.clone(),
            api_key_env: args.api_key_env.clone(),
        },
        fallback_model: args.fallback_model.clone(),
        mode,
        sandbox,
        trust: if args.trust_workspace {
            crate::overrides::TrustFlag::Given
        } else {
            crate::overrides::TrustFlag::Absent
        },
        rules: overrides::RuleTexts {
            allow: args.allowed_tools.clone(),
            deny: args.disallowed_tools.clone(),
        },
        added_dirs: args.add_dir.clone(),
        settings_sources: args.settings.clone(),
        mcp: overrides::McpServers {
            configs: args.mcp_config.clone(),
            strict: args.strict_mcp_config,
            servers: Vec::new(),
        },
        start: overrides::SessionStart {
            at,
            fork: args.fork_session,
        },
        limits: overrides::Limits {
            max_turns: args.max_turns,
            context_window: args.context_window,
            effort: args.effort,
            max_budget_usd: args.max_budget_usd,
        },
        prompt: overrides::PromptTexts {
            system: args.system_prompt.clone(),
            system_file: args.system_prompt_file.clone(),
            append: args.append_system_prompt.clone(),
        },
        trace: args.trace.clone(),
        output_dialect: args.output_dialect,
    })
}

pub async fn run(args: ExecArgs) -> Result<(), Exit> {
    let streamed = args.input_format == InputFormat::StreamJson;
    if streamed && args.prompt.is_some() {
        return Err(Exit::usage(
            "with --input-format stream-json the messages come on standard input, not as an \
             argument",
        ));
    }
    let answers = args
        .answers
        .as_deref()
        .map(crate::answers::FileAnswers::load)
        .transpose()?;
    let overrides = overrides(&args)?;
    let mut setup = Setup::new(&overrides, crate::trust::Asking::Never)?;
    setup.start_mcp().await;
    let setup = Arc::new(setup);
    // `--compact` alone compacts and stops; with a prompt it compacts first.
    let prompt = if streamed || (args.compact && args.prompt.is_none()) {
        None
    } else {
        Some(with_images(
            read_prompt(args.prompt.as_deref())?,
            &args.image,
        )?)
    };
    let hosted = Hosted::on(Arc::clone(&setup), &overrides.start, None)?;
    let mut printer = Printer::new(args.output_format, std::io::stdout(), std::io::stderr());
    if setup.settings.output_dialect == OutputDialect::Claude {
        printer = printer.in_claude_dialect(claude_dialect(&setup));
    }
    let interrupted = CancellationToken::new();
    let stopped_by = Arc::new(AtomicI32::new(0));
    let interrupts = tokio::spawn(watch_interrupts(
        interrupted.clone(),
        Arc::clone(&stopped_by),
    ));
    let mut session = Session {
        hosted,
        printer,
        interrupted,
    };
    if let Some(answers) = answers {
        session.hosted.set_answerer(Arc::new(answers)).await;
    }
    // Only a session that stays runs its scheduled jobs: one taken off the schedule by a
    // run about to end would be lost.
    if args.stay {
        session.hosted.serve_schedule().await;
    }
    if args.compact {
        let focus = args.focus.clone();
        if let JobEnd::Compacted(Some(error)) = session.job(Op::Compact { focus }).await {
            session.close().await;
            setup.close().await;
            return Err(Exit::failed(format!("compaction failed: {error}")));
        }
    }
    let mut outcome = match (prompt, streamed) {
        (Some(prompt), _) => session.run(prompt).await,
        (None, true) => session.run_input().await,
        (None, false) if args.stay => RunOutcome::Completed,
        (None, false) => {
            session.close().await;
            setup.close().await;
            return Ok(());
        }
    };
    if args.stay && outcome != RunOutcome::Cancelled {
        outcome = session.stay().await;
    }
    interrupts.abort();
    session.close().await;
    setup.close().await;
    exit(outcome, stopped_by.load(Ordering::SeqCst))
}

/// How rein ends after a run that ended with `outcome`: with the status of `signal` when one
/// stopped it (0: none came).
fn exit(outcome: RunOutcome, signal: i32) -> Result<(), Exit> {
    if signal != 0 {
        return Err(Exit::signalled(
            signal,
            format!(
                "stopped by {}: the turn was cancelled, its commands killed and the session saved",
                signal_name(signal)
            ),
        ));
    }
    match outcome {
        RunOutcome::Completed => Ok(()),
        // Only an interruption (Ctrl-C) cancels a headless run: 128 + SIGINT, as a shell
        // reports a program Ctrl-C stopped.
        RunOutcome::Cancelled => Err(Exit::signalled(
            SIGINT,
            "cancelled: the turn's commands were killed and the session saved",
        )),
        RunOutcome::MaxTurns => Err(Exit::turn_limit()),
        RunOutcome::MaxBudget => Err(Exit::budget()),
        RunOutcome::Failed => Err(Exit::silent_failure()),
    }
}

/// The number of SIGINT (Ctrl-C).
const SIGINT: i32 = 2;

/// The session as `rein exec` drives it: jobs on the hosted session, its events to the
/// printer.
struct Session {
    hosted: Hosted,
    printer: Printer<std::io::Stdout, std::io::Stderr>,
    /// Cancelled by Ctrl-C, SIGTERM or SIGHUP: the job under way is cancelled.
    interrupted: CancellationToken,
}

#[async_trait::async_trait]
impl Sink for Printer<std::io::Stdout, std::io::Stderr> {
    async fn event(&mut self, event: Event) {
        self.handle(event);
    }
}

/// What Claude Code's `init` event says that the engine's events do not.
fn claude_dialect(setup: &Setup) -> crate::claude_output::ClaudeDialect {
    let settings = &setup.settings;
    let keyed = settings.provider.api_key.is_some();
    crate::claude_output::ClaudeDialect::new(crate::claude_output::InitFacts {
        permission_mode: crate::claude_output::mode_name(settings.template.policy.mode),
        api_key_source: if keyed {
            settings.provider.key_env.clone()
        } else {
            "none".to_string()
        },
        mcp_servers: (setup.mcp.servers.iter())
            .map(|server| server.config.name.clone())
            .collect(),
        agents: Vec::new(),
    })
}

impl Session {
    /// Runs `prompt`; its outcome.
    async fn run(&mut self, prompt: String) -> RunOutcome {
        match self.job(Op::Submit(prompt)).await {
            JobEnd::Ran(reply) => reply.outcome,
            // The controller ends every run with its `Result`; without one, the run failed.
            JobEnd::Compacted(_) | JobEnd::Closed => RunOutcome::Failed,
        }
    }

    /// Runs each user message of standard input in turn (`--input-format stream-json`) until
    /// it ends or a run is cancelled; a line that is not a message is said and skipped. The
    /// last run's outcome (completed when none ran).
    async fn run_input(&mut self) -> RunOutcome {
        use tokio::io::AsyncBufReadExt;
        let mut lines = tokio::io::BufReader::new(tokio::io::stdin()).lines();
        let mut outcome = RunOutcome::Completed;
        let mut number = 0;
        loop {
            let line = tokio::select! {
                line = lines.next_line() => line,
                () = self.interrupted.cancelled() => return RunOutcome::Cancelled,
            };
            let line = match line {
                Ok(Some(line)) => line,
                Ok(None) => return outcome,
                Err(e) => {
                    eprintln!("rein: cannot read standard input: {e}");
                    return RunOutcome::Failed;
                }
            };
            number += 1;
            match crate::input_messages::parse(&line) {
                Ok(InputLine::Prompt(prompt)) => outcome = self.run(prompt).await,
                Ok(InputLine::Blank) => {}
                Err(why) => eprintln!("rein: standard input line {number} skipped: {why}"),
            }
            if outcome == RunOutcome::Cancelled {
                return outcome;
            }
        }
    }

    /// `--stay`: prints the runs of scheduled jobs as they come, until no job is left and
    /// none runs, or an interruption (which cancels the run under way, if one is, and
    /// ends the wait). The last run's outcome (completed when none ran).
    async fn stay(&mut self) -> RunOutcome {
        let jobs = self.hosted.jobs().await;
        if let Some(next) = jobs.first() {
            eprintln!(
                "rein: staying for {} scheduled job(s), the next at {}; Ctrl-C ends",
                jobs.len(),
                next.next_fire
            );
        }
        let stayed = self.hosted.stay(&mut self.printer, &self.interrupted).await;
        stayed.unwrap_or(RunOutcome::Failed)
    }

    /// Starts the job `op` and prints its events until the one that ends it (a compaction's
    /// end is not printed: a failure is said as rein's exit). An interruption, before or
    /// during the job, cancels it.
    async fn job(&mut self, op: Op) -> JobEnd {
        let ran = self
            .hosted
            .job(op, &mut self.printer, &self.interrupted)
            .await;
        // Nothing else drives this session: it is never busy.
        ran.unwrap_or(JobEnd::Closed)
    }

    /// Ends the session and prints what is still to come, until every sender of the
    /// session's events is gone.
    async fn close(self) {
        let Self {
            hosted,
            mut printer,
            ..
        } = self;
        hosted.finish(&mut printer).await;
    }
}

/// First Ctrl-C cancels the run (`interrupted`, which [`Session::job`] turns into
/// `Op::Cancel`: tools are killed, the transcript stays valid); a second one quits at once.
/// SIGTERM and SIGHUP (a closed terminal, a supervisor stopping rein) cancel the run the same
/// way and then end rein with their conventional status, once the session is saved;
/// `stopped_by` records which came.
async fn watch_interrupts(interrupted: CancellationToken, stopped_by: Arc<AtomicI32>) {
    use tokio::signal::unix::{SignalKind, signal};
    let (Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    tokio::select! {
        interrupted = tokio::signal::ctrl_c() => {
            if interrupted.is_err() {
                return;
            }
            // Not `eprintln!`: a closed stderr must not stop the cancellation.
            let _ = writeln!(std::io::stderr(), "rein: cancelling the turn (Ctrl-C again to quit)");
        }
        _ = term.recv() => stopped_by.store(libc_signal(SignalKind::terminate()), Ordering::SeqCst),
        _ = hup.recv() => stopped_by.store(libc_signal(SignalKind::hangup()), Ordering::SeqCst),
    }
    interrupted.cancel();
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(130);
    }
}

/// The signal number of `kind`.
fn libc_signal(kind: tokio::signal::unix::SignalKind) -> i32 {
    kind.as_raw_value()
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        15 => "SIGTERM",
        1 => "SIGHUP",
        _ => "a signal",
    }
}

/// The prompt argument, or standard input when it is absent or `-`.
/// `prompt` with an `@FILE` mention for each `--image`, which attaches it as the model's
/// `read_file` would show it (a path with a space cannot be mentioned, so it is refused).
fn with_images(mut prompt: String, images: &[String]) -> Result<String, Exit> {
    for image in images {
        if image.chars().any(char::is_whitespace) {
            return Err(Exit::usage(format!(
                "--image {image:?}: a path with spaces cannot be attached; copy or link it"
            )));
        }
        if !std::path::Path::new(image).is_file() {
            return Err(Exit::usage(format!("--image {image:?}: no such file")));
        }
        prompt.push_str(&format!("\n@{image}"));
    }
    Ok(prompt)
}

fn read_prompt(arg: Option<&str>) -> Result<String, Exit> {
    let prompt = match arg {
        Some(text) if text != "-" => text.to_string(),
        _ => {
            let stdin = std::io::stdin();
            if stdin.is_terminal() {
                return Err(Exit::usage(
                    "no prompt: pass it as an argument or pipe it on standard input",
                ));
            }
            let mut text = String::new();
            stdin
                .lock()
                .read_to_string(&mut text)
                .map_err(|e| Exit::usage(format!("cannot read the prompt from stdin: {e}")))?;
            text
        }
    };
    if prompt.trim().is_empty() {
        return Err(Exit::usage("the prompt is empty"));
    }
    Ok(prompt)
}
