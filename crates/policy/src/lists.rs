//! The three rule lists by name, and the changes a user makes to them during a session
//! (`/permissions allow …`, `/permissions remove …`): the file is written by the front end,
//! the live policy changed here.

use super::{Rules, SourcedRule};

/// One of the rule lists.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleList {
    /// Calls that run without asking.
    Allow,
    /// Calls that always ask.
    Ask,
    /// Calls that never run.
    Deny,
}

impl RuleList {
    /// Every list, in the order they are shown.
    pub const ALL: [Self; 3] = [Self::Allow, Self::Ask, Self::Deny];

    /// Its name in settings files and commands: `allow`, `ask`, `deny`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }

    /// The list a name stands for.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|list| list.name() == name)
    }
}

/// A change to the live rule lists.
#[derive(Debug, Clone)]
pub enum RuleEdit {
    /// Add a rule to a list (nothing when the list has it from the same file).
    Add {
        /// Which list.
        list: RuleList,
        /// The rule, with the file it was written to as its source.
        rule: Box<SourcedRule>,
    },
    /// Remove the rules written so from every list, where their source is in `file`.
    Remove {
        /// The rule as written.
        text: String,
        /// The file it was removed from (a source is `file` or `file:line`).
        file: String,
    },
}

impl PartialEq for RuleEdit {
    fn eq(&self, other: &Self) -> bool {
        match (self, other) {
            (Self::Add { list: a, rule: r }, Self::Add { list: b, rule: s }) => {
                a == b && r.rule.text == s.rule.text && r.source == s.source
            }
            (Self::Remove { text: a, file: f }, Self::Remove { text: b, file: g }) => {
                a == b && f == g
            }
            _ => false,
        }
    }
}

impl Rules {
    /// The list `list`.
    pub fn list(&self, list: RuleList) -> &[SourcedRule] {
        match list {
            RuleList::Allow => &self.allow,
            RuleList::Ask => &self.ask,
            RuleList::Deny => &self.deny,
        }
    }

    fn list_mut(&mut self, list: RuleList) -> &mut Vec<SourcedRule> {
        match list {
            RuleList::Allow => &mut self.allow,
            RuleList::Ask => &mut self.ask,
            RuleList::Deny => &mut self.deny,
        }
    }

    /// Applies `edit`; how many rules it added or removed.
    pub fn apply(&mut self, edit: RuleEdit) -> usize {
        match edit {
            RuleEdit::Add { list, rule } => {
                let rules = self.list_mut(list);
                let known = rules
                    .iter()
                    .any(|r| r.rule.text == rule.rule.text && r.source == rule.source);
                if known {
                    return 0;
                }
                rules.push(*rule);
                1
            }
            RuleEdit::Remove { text, file } => {
                let from_file = |source: &str| {
                    source
                        .strip_prefix(file.as_str())
                        .is_some_and(|rest| rest.is_empty() || rest.starts_with(':'))
                };
                let mut removed = 0;
                for list in RuleList::ALL {
                    let rules = self.list_mut(list);
                    let before = rules.len();
                    rules.retain(|r| !(r.rule.text == text && from_file(&r.source)));
                    removed += before - rules.len();
                }
                removed
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Rule;

    fn sourced(text: &str, source: &str) -> SourcedRule {
        SourcedRule {
            rule: Rule::parse(text, std::path::Path::new("/w"), None).unwrap(),
            source: source.to_string(),
        }
    }

    #[test]
    fn rules_are_added_once_and_removed_only_from_their_file() {
        let mut rules = Rules::default();
        let add = |list, text, source| RuleEdit::Add {
            list,
            rule: Box::new(sourced(text, source)),
        };
        assert_eq!(
            rules.apply(add(RuleList::Allow, "Bash(ls *)", "/u.toml")),
            1
        );
        assert_eq!(
            rules.apply(add(RuleList::Allow, "Bash(ls *)", "/u.toml")),
            0
        );
        assert_eq!(
            rules.apply(add(RuleList::Deny, "Bash(ls *)", "/w.toml:3")),
            1
        );
        assert_eq!(rules.apply(add(RuleList::Ask, "Read", "/u.toml.bak")), 1);
        let remove = |text: &str, file: &str| RuleEdit::Remove {
            text: text.to_string(),
            file: file.to_string(),
        };
        assert_eq!(rules.apply(remove("Read", "/u.toml")), 0);
        assert_eq!(rules.apply(remove("Bash(ls *)", "/w.toml")), 1);
        assert_eq!(rules.list(RuleList::Deny).len(), 0);
        assert_eq!(rules.list(RuleList::Allow).len(), 1);
        assert_eq!(RuleList::parse("deny"), Some(RuleList::Deny));
        assert_eq!(RuleList::parse("block"), None);
    }
}
