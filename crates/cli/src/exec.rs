//! `rein exec`: run one prompt to completion, headless.

use std::io::{IsTerminal, Read};

use rein_protocol::RunOutcome;
use tokio_util::sync::CancellationToken;

use crate::Exit;
use crate::args::ExecArgs;
use crate::output::Printer;
use crate::setup::Setup;

pub async fn run(args: ExecArgs) -> Result<(), Exit> {
    let setup = Setup::new(args, crate::trust::Asking::Never)?;
    let args = &setup.args;
    // `--compact` alone compacts and stops; with a prompt it compacts first.
    let prompt = if args.compact && args.prompt.is_none() {
        None
    } else {
        Some(read_prompt(args.prompt.as_deref())?)
    };
    let resumed = setup.to_resume()?;
    let mut agent = setup.agent(resumed, args.fork_session)?;

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let format = args.output_format;
    let printer = tokio::spawn(async move {
        let mut printer = Printer::new(format, std::io::stdout(), std::io::stderr());
        while let Some(event) = rx.recv().await {
            printer.handle(event);
        }
    });
    let cancel = CancellationToken::new();
    let interrupts = tokio::spawn(watch_interrupts(cancel.clone()));
    if args.compact
        && let Err(message) = agent
            .compact("manual", args.focus.as_deref(), &tx, &cancel)
            .await
    {
        drop(tx);
        let _ = printer.await;
        return Err(Exit::failed(format!("compaction failed: {message}")));
    }
    let Some(prompt) = prompt else {
        drop(tx);
        let _ = printer.await;
        return Ok(());
    };
    let summary = agent.run(&prompt, &tx, cancel).await;
    agent.end_session("other", &tx).await;
    interrupts.abort();
    drop(tx);
    let _ = printer.await;
    match summary.outcome {
        RunOutcome::Completed => Ok(()),
        RunOutcome::Cancelled => Err(Exit::failed("cancelled")),
        RunOutcome::MaxTurns | RunOutcome::Failed => Err(Exit::silent_failure()),
    }
}

/// First Ctrl-C cancels the run (tools are killed, the transcript stays valid); a second one
/// quits at once.
async fn watch_interrupts(cancel: CancellationToken) {
    if tokio::signal::ctrl_c().await.is_err() {
        return;
    }
    eprintln!("rein: cancelling the turn (Ctrl-C again to quit)");
    cancel.cancel();
    if tokio::signal::ctrl_c().await.is_ok() {
        std::process::exit(130);
    }
}

/// The prompt argument, or standard input when it is absent or `-`.
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
