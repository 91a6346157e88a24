//! `rein exec --answers FILE`: the model's questions answered from a JSON file, for scripted
//! runs. Each key is a question's text, header or id; each value the label chosen (or typed),
//! or a list of them for a question that takes several.

use std::collections::BTreeMap;
use std::path::Path;

use async_trait::async_trait;
use rein_engine::questions::{Answer, Answerer, Question};
use serde_json::Value;

use crate::Exit;

/// What a question the file does not answer gets.
const UNANSWERED: &str = "(no answer given: decide yourself and say what you assumed)";

/// The answers of a file.
#[derive(Debug, Clone, Default)]
pub struct FileAnswers {
    answers: BTreeMap<String, Answer>,
}

impl FileAnswers {
    /// Reads `path`: a JSON object of strings or lists of strings. A bad file is a usage
    /// error naming it.
    pub fn load(path: &Path) -> Result<Self, Exit> {
        let problem = |why: String| Exit::usage(format!("--answers {}: {why}", path.display()));
        let text = match rein_tools::read_regular(path, 1024 * 1024) {
            Ok(Some(text)) => text,
            Ok(None) => return Err(problem("no such file".to_string())),
            Err(e) => return Err(problem(e.to_string())),
        };
        let value: Value =
            serde_json::from_str(&text).map_err(|e| problem(format!("not JSON: {e}")))?;
        let Value::Object(map) = value else {
            return Err(problem(
                "expected an object from questions to answers".to_string(),
            ));
        };
        let mut answers = BTreeMap::new();
        for (question, answer) in map {
            let labels = match answer {
                Value::String(label) => vec![label],
                Value::Array(items) => items
                    .into_iter()
                    .map(|item| match item {
                        Value::String(label) => Ok(label),
                        other => Err(problem(format!("{question:?}: {other} is not a string"))),
                    })
                    .collect::<Result<_, _>>()?,
                other => {
                    return Err(problem(format!(
                        "{question:?}: expected a string or a list of strings, not {other}"
                    )));
                }
            };
            answers.insert(question, labels);
        }
        Ok(Self { answers })
    }

    /// The answer to `question`, found by its text, header or id.
    fn find(&self, question: &Question) -> Answer {
        [
            Some(&question.question),
            Some(&question.header),
            question.id.as_ref(),
        ]
        .into_iter()
        .flatten()
        .find_map(|key| self.answers.get(key.as_str()))
        .cloned()
        .unwrap_or_else(|| vec![UNANSWERED.to_string()])
    }
}

#[async_trait]
impl Answerer for FileAnswers {
    async fn answer(&self, questions: Vec<Question>) -> Option<Vec<Answer>> {
        Some(questions.iter().map(|q| self.find(q)).collect())
    }
}
