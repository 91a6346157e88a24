//! The sandbox keys of a TOML file: `sandbox = "…"` and `[sandbox_settings]`. Only the user's
//! files and a trusted workspace's may set them (a repository must not turn the sandbox off
//! or open a writable root for itself).

use rein_sandbox::Policy;

use super::file::TomlFile;
use super::{Config, ConfigError, Ignored, Reader, Scope, Sourced, Why};

/// The merged sandbox settings.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SandboxConfig {
    /// The policy of shell commands not proven read-only.
    pub policy: Option<Sourced<Policy>>,
    /// Whether restricted commands may use the network.
    pub network: Option<Sourced<bool>>,
    /// Extra readable folders, as written (`~/` allowed).
    pub read_roots: Vec<Sourced<String>>,
    /// Writable folders under `workspace-write`, as written.
    pub writable_roots: Vec<Sourced<String>>,
}

/// Adds the sandbox settings of `file` to `config`; an untrusted workspace's are held back.
pub(super) fn merge(
    config: &mut Config,
    file: &TomlFile,
    reader: &Reader<'_>,
    scope: Scope,
) -> Result<(), ConfigError> {
    let settings = &file.sandbox_settings;
    if scope == Scope::UntrustedWorkspace {
        let mut ignore = |what: String, source: String| {
            config.ignored.push(Ignored {
                what,
                source,
                why: Why::Untrusted,
            });
        };
        if let Some(policy) = &file.sandbox {
            ignore(
                format!("sandbox = {:?}", policy.get_ref()),
                reader.at(policy),
            );
        }
        if let Some(network) = &settings.network {
            ignore(
                format!("sandbox_settings.network = {}", network.get_ref()),
                reader.at(network),
            );
        }
        for root in settings.read_roots.iter().chain(&settings.writable_roots) {
            ignore(
                format!("sandbox root {:?}", root.get_ref()),
                reader.at(root),
            );
        }
        return Ok(());
    }
    let sandbox = &mut config.sandbox;
    if let Some(policy) = &file.sandbox {
        let value = Policy::parse(policy.get_ref())
            .map_err(|message| reader.error(policy, "sandbox", message.to_string()))?;
        sandbox.policy = Some(Sourced {
            value,
            source: reader.at(policy),
        });
    }
    if let Some(network) = &settings.network {
        sandbox.network = Some(reader.sourced(network));
    }
    for (key, roots, into) in [
        (
            "sandbox_settings.read_roots",
            &settings.read_roots,
            &mut sandbox.read_roots,
        ),
        (
            "sandbox_settings.writable_roots",
            &settings.writable_roots,
            &mut sandbox.writable_roots,
        ),
    ] {
        for root in roots {
            let text = root.get_ref();
            if !(text.starts_with('/') || text.starts_with("~/")) {
                return Err(reader.error(
                    root,
                    key,
                    "a root must be an absolute path or start with ~/",
                ));
            }
            into.push(reader.sourced(root));
        }
    }
    Ok(())
}
