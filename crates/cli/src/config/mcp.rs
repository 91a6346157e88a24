//! The MCP part of a config file: `[mcp_servers.<name>]` tables (a workspace's only once
//! trusted) and `mcp_env_allow`, the variables a workspace's MCP configuration may read, which
//! only the user's own file sets.

use super::{Config, Ignored, Reader, Scope, Why, file::TomlFile, ignore};

/// A `[mcp_servers.<name>]` table and whose file set it (a workspace's reads only the
/// variables of `mcp_env_allow`).
#[derive(Debug, Clone, PartialEq)]
pub struct McpTable {
    pub name: String,
    pub table: rein_mcp::TomlServer,
    /// The file.
    pub source: String,
    pub scope: Scope,
}

/// Adds the MCP tables and allowed variables of `file` (read by `reader`) to `config`.
pub(super) fn merge(config: &mut Config, file: &TomlFile, reader: &Reader<'_>) {
    let scope = reader.source.scope;
    let untrusted = scope == Scope::UntrustedWorkspace;
    for (name, server) in file.mcp_servers.iter().flatten() {
        if untrusted {
            config.ignored.push(Ignored {
                what: format!("MCP server {name}"),
                source: reader.source.path.clone(),
                why: Why::Untrusted,
            });
            continue;
        }
        config.mcp_servers.retain(|t| &t.name != name);
        config.mcp_servers.push(McpTable {
            name: name.clone(),
            table: server.clone(),
            source: reader.source.path.clone(),
            scope,
        });
    }
    for var in file.mcp_env_allow.iter().flatten() {
        if scope == Scope::User {
            config.mcp_env_allow.push(reader.sourced(var));
        } else {
            let what = format!("mcp_env_allow entry {:?}", var.get_ref());
            ignore(config, what, reader.at(var), Why::UserOnly);
        }
    }
}
