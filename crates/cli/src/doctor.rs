//! `/doctor`: what could stop a session from working here, each finding with its fix.

use std::net::{TcpStream, ToSocketAddrs};
use std::time::Duration;

use crate::setup::Setup;

/// How long the base URL's host gets to accept a connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);

/// One line per check: `ok` or `problem`, what was found, and what to do about a problem.
pub fn checks(setup: &Setup) -> Vec<String> {
    let mut lines = Vec::new();
    let mut check = |ok: bool, found: String, fix: &str| {
        lines.push(match ok {
            true => format!("ok       {found}"),
            false => format!("problem  {found} → {fix}"),
        });
    };
    provider(setup, &mut check);
    machine(setup, &mut check);
    lines
}

/// The key and the server.
fn provider(setup: &Setup, check: &mut impl FnMut(bool, String, &str)) {
    let provider = &setup.settings.provider;
    check(
        provider.api_key.is_some() || !provider.base_url.starts_with("https://"),
        format!(
            "API key: ${} {}",
            provider.key_env,
            match provider.api_key {
                Some(_) => "is set",
                None => "is not set",
            }
        ),
        "export your key in it, or pass --api-key-env NAME",
    );
    let reachable = reachable(&provider.base_url);
    check(
        reachable.is_ok(),
        format!(
            "base URL {}: {}",
            provider.base_url,
            reachable.as_deref().unwrap_or_else(|e| e.as_str())
        ),
        "check the address (--base-url, base_url in config) and that the server runs",
    );
}

/// The sandbox, git, the terminal, the configuration and the MCP servers.
#[allow(clippy::disallowed_methods)] // `rein doctor` reports the terminal it runs in (TERM)
fn machine(setup: &Setup, check: &mut impl FnMut(bool, String, &str)) {
    let settings = &setup.settings;
    check(
        settings.template.sandbox.is_some(),
        format!(
            "OS sandbox: {}",
            if settings.template.sandbox.is_some() {
                "available"
            } else {
                "unavailable"
            }
        ),
        "see `rein sandbox check`; shell commands run unconfined and `auto` mode is off",
    );
    let git = rein_checkpoint::user_git(std::path::Path::new("."))
        .arg("--version")
        .output()
        .is_ok_and(|out| out.status.success());
    check(
        git,
        format!("git: {}", if git { "found" } else { "not found" }),
        "install git: checkpoints of the work tree and /rewind of shell changes need it",
    );
    let term = std::env::var("TERM").unwrap_or_default();
    check(
        !term.is_empty() && term != "dumb",
        format!("terminal: TERM={term}"),
        "run rein in a terminal emulator with TERM set (xterm-256color)",
    );
    let config = &settings.config;
    check(
        config.unread.is_empty(),
        format!("config files: {} skipped", config.unread.len()),
        &config.unread.join("; "),
    );
    check(
        config.workspace_trusted,
        format!(
            "workspace config: {}",
            if config.workspace_trusted {
                "applied"
            } else {
                "not trusted, held back"
            }
        ),
        "run `rein trust` here once you have read .rein/, .claude/ and .mcp.json",
    );
    for (name, failure) in &setup.mcp.failures {
        check(
            false,
            format!("MCP server {name}: {failure}"),
            "see `rein mcp list`",
        );
    }
}

/// Whether something accepts connections at the URL's host and port: `Ok` with what was
/// found, `Err` with why not.
fn reachable(url: &str) -> Result<String, String> {
    let (secure, rest) = match url.split_once("://") {
        Some(("https", rest)) => (true, rest),
        Some(("http", rest)) => (false, rest),
        _ => return Err("not an http:// or https:// URL".to_string()),
    };
    let authority = rest.split('/').next().unwrap_or_default();
    let address = match authority.rsplit_once(':') {
        Some((_, port)) if port.parse::<u16>().is_ok() && !authority.ends_with(']') => {
            authority.to_string()
        }
        _ => format!("{authority}:{}", if secure { 443 } else { 80 }),
    };
    let addresses = address
        .to_socket_addrs()
        .map_err(|e| format!("{address} does not resolve ({e})"))?;
    for candidate in addresses {
        if TcpStream::connect_timeout(&candidate, CONNECT_TIMEOUT).is_ok() {
            return Ok(format!("{address} accepts connections"));
        }
    }
    Err(format!("nothing accepts connections at {address}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reachability_names_what_it_tried() {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        assert_eq!(
            reachable(&format!("http://127.0.0.1:{port}/v1")),
            Ok(format!("127.0.0.1:{port} accepts connections"))
        );
        drop(listener);
        assert_eq!(
            reachable(&format!("http://127.0.0.1:{port}")),
            Err(format!("nothing accepts connections at 127.0.0.1:{port}"))
        );
        assert!(reachable("ftp://x").unwrap_err().contains("not an http"));
    }
}
