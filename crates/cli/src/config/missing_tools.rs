//! Rules that name tools rein does not have (`WebFetch(domain:…)`, `Skill(…)`, an MCP server
//! not configured): kept, since they start to matter when the tool exists, and reported once.

use rein_policy::Rule;

use super::Config;

/// The tool names of the config's rules that are not among `known` (rein's tool names),
/// each once, in the order first written.
pub fn missing_tools(config: &Config, known: &[String]) -> Vec<String> {
    let mut missing: Vec<String> = Vec::new();
    for sourced in config.allow.iter().chain(&config.ask).chain(&config.deny) {
        let Ok(rule) = Rule::parse(&sourced.value, std::path::Path::new("/"), None) else {
            continue;
        };
        if rule.tools().iter().any(|t| known.contains(t)) {
            continue;
        }
        let name = sourced
            .value
            .split('(')
            .next()
            .unwrap_or(&sourced.value)
            .trim()
            .to_string();
        if !missing.contains(&name) {
            missing.push(name);
        }
    }
    missing
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Sourced;

    #[test]
    fn rules_for_tools_rein_lacks_are_named_once() {
        let rule = |text: &str| Sourced {
            value: text.to_string(),
            source: "t".to_string(),
        };
        let config = Config {
            allow: vec![
                rule("Bash(ls *)"),
                rule("WebFetch(domain:a.com)"),
                rule("WebFetch(domain:b.com)"),
                rule("Skill(x:y)"),
                rule("Read(./src/**)"),
            ],
            deny: vec![rule("mcp__sentry__search_docs"), rule("WebSearch")],
            ..Config::default()
        };
        let known: Vec<String> = ["bash", "read_file", "glob", "grep"]
            .map(String::from)
            .to_vec();
        assert_eq!(
            missing_tools(&config, &known),
            ["WebFetch", "Skill", "mcp__sentry__search_docs", "WebSearch"]
        );
    }
}
