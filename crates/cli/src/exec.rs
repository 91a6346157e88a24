//! `rein exec`: run one prompt to completion, headless.

use std::io::{IsTerminal, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicI32, Ordering};

use rein_engine::{Controller, EndReason, Op};
use rein_protocol::RunOutcome;
use tokio_util::sync::CancellationToken;

use crate::Exit;
use crate::args::ExecArgs;
use crate::output::Printer;
use crate::setup::Setup;

pub async fn run(args: ExecArgs) -> Result<(), Exit> {
    let mut setup = Setup::new(&args, crate::trust::Asking::Never)?;
    setup.start_mcp().await;
    let setup = Arc::new(setup);
    // `--compact` alone compacts and stops; with a prompt it compacts first.
    let prompt = if args.compact && args.prompt.is_none() {
        None
    } else {
        Some(read_prompt(args.prompt.as_deref())?)
    };
    let agent = setup.agent(setup.start(&args)?)?;

    let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel();
    let format = args.output_format;
    let printer = tokio::spawn(async move {
        let mut printer = Printer::new(format, std::io::stdout(), std::io::stderr());
        while let Some(event) = rx.recv().await {
            printer.handle(event);
        }
    });
    let mut controller = Controller::new(agent, setup.clone(), tx.clone(), None);
    let cancel = CancellationToken::new();
    let stopped_by = Arc::new(AtomicI32::new(0));
    let interrupts = tokio::spawn(watch_interrupts(cancel.clone(), Arc::clone(&stopped_by)));
    if args.compact
        && let Err(error) = controller.compact_now(args.focus.as_deref(), &cancel).await
    {
        drop((tx, controller));
        let _ = printer.await;
        return Err(Exit::failed(format!("compaction failed: {error}")));
    }
    let Some(prompt) = prompt else {
        drop((tx, controller));
        let _ = printer.await;
        return Ok(());
    };
    let summary = controller.run(&prompt, cancel).await;
    let _ = controller.apply(Op::Shutdown(EndReason::Other)).await;
    interrupts.abort();
    drop((tx, controller));
    let _ = printer.await;
    setup.mcp.shutdown(crate::mcp::SHUTDOWN_GRACE).await;
    let signal = stopped_by.load(Ordering::SeqCst);
    if signal != 0 {
        return Err(Exit::signalled(
            signal,
            format!(
                "stopped by {}: the turn was cancelled, its commands killed and the session saved",
                signal_name(signal)
            ),
        ));
    }
    match summary.outcome {
        RunOutcome::Completed => Ok(()),
        RunOutcome::Cancelled => Err(Exit::failed("cancelled")),
        RunOutcome::MaxTurns | RunOutcome::Failed => Err(Exit::silent_failure()),
    }
}

/// First Ctrl-C cancels the run (tools are killed, the transcript stays valid); a second one
/// quits at once. SIGTERM and SIGHUP (a closed terminal, a supervisor stopping rein) cancel the
/// run the same way and then end rein with their conventional status, once the session is
/// saved; `stopped_by` records which came.
async fn watch_interrupts(cancel: CancellationToken, stopped_by: Arc<AtomicI32>) {
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
            eprintln!("rein: cancelling the turn (Ctrl-C again to quit)");
        }
        _ = term.recv() => stopped_by.store(libc_signal(SignalKind::terminate()), Ordering::SeqCst),
        _ = hup.recv() => stopped_by.store(libc_signal(SignalKind::hangup()), Ordering::SeqCst),
    }
    cancel.cancel();
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
