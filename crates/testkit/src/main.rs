//! `rein-mock-llm --scenario FILE [--port N] [--log-requests]`: serves a scenario on 127.0.0.1
//! until killed.
//!
//! Prints `rein-mock-llm listening on http://127.0.0.1:PORT` once ready; with `--log-requests`,
//! then one line `request N METHOD PATH UNIX_NS` per request received. Bad arguments or an
//! unreadable or invalid scenario print one line on stderr and exit with status 2.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use rein_testkit::{MockServer, Scenario};

const USAGE: &str = "usage: rein-mock-llm --scenario FILE [--port N] [--log-requests]";

/// Resolved command line.
struct Args {
    scenario: PathBuf,
    port: u16,
    log_requests: bool,
}

fn parse_args(mut args: impl Iterator<Item = String>) -> Result<Args, String> {
    let mut scenario = None;
    let mut port = 0;
    let mut log_requests = false;
    while let Some(arg) = args.next() {
        let (flag, inline) = match arg.split_once('=') {
            Some((flag, value)) => (flag.to_string(), Some(value.to_string())),
            None => (arg, None),
        };
        let mut value = || {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{flag} needs a value ({USAGE})"))
        };
        match flag.as_str() {
            "--scenario" => scenario = Some(PathBuf::from(value()?)),
            "--port" => {
                let text = value()?;
                port = text
                    .parse()
                    .map_err(|_| format!("--port: {text:?} is not a port number ({USAGE})"))?;
            }
            "--log-requests" => log_requests = true,
            "-h" | "--help" => return Err(USAGE.to_string()),
            other => return Err(format!("unexpected argument {other:?} ({USAGE})")),
        }
    }
    let scenario = scenario.ok_or_else(|| format!("--scenario is required ({USAGE})"))?;
    Ok(Args {
        scenario,
        port,
        log_requests,
    })
}

#[tokio::main]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("rein-mock-llm: {message}");
            ExitCode::from(2)
        }
    }
}

async fn run() -> Result<(), String> {
    let args = parse_args(std::env::args().skip(1))?;
    let scenario = Scenario::load(&args.scenario).map_err(|e| e.to_string())?;
    let server = MockServer::start_on(scenario, args.port)
        .await
        .map_err(|e| format!("cannot listen on 127.0.0.1:{}: {e}", args.port))?;
    if args.log_requests {
        server.announce_requests();
    }
    let mut stdout = std::io::stdout();
    writeln!(stdout, "rein-mock-llm listening on {}", server.url())
        .and_then(|()| stdout.flush())
        .map_err(|e| format!("cannot write to stdout: {e}"))?;
    std::future::pending::<()>().await;
    Ok(())
}
