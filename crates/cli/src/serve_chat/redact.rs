//! A platform whose posts and edits never carry a provider key or the bot's token: every
//! text — a message's, a button's label and data, an acknowledgement's, a file's — is redacted
//! on its way out, whoever wrote it (the model, a tool's output, an error).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use rein_chat::{Button, ChatError, ChatId, Incoming, Platform, Posted};
use rein_tools::HiddenEnv;

/// `inner`, redacting what it posts.
pub(super) struct Redacting {
    pub(super) inner: Arc<dyn Platform>,
    pub(super) hidden: HiddenEnv,
}

impl Redacting {
    /// `buttons` with their labels (an approval's names the call: `Bash(echo $KEY …)`) and
    /// data redacted.
    fn buttons(&self, buttons: &[Button]) -> Vec<Button> {
        buttons
            .iter()
            .map(|b| Button {
                label: self.hidden.redact(&b.label).into_owned(),
                data: self.hidden.redact(&b.data).into_owned(),
            })
            .collect()
    }
}

#[async_trait]
impl Platform for Redacting {
    fn name(&self) -> &'static str {
        self.inner.name()
    }

    fn max_chars(&self) -> usize {
        self.inner.max_chars()
    }

    fn edit_interval(&self) -> Duration {
        self.inner.edit_interval()
    }

    async fn next(&self) -> Result<Vec<Incoming>, ChatError> {
        self.inner.next().await
    }

    async fn post(
        &self,
        chat: &ChatId,
        text: &str,
        buttons: &[Button],
    ) -> Result<Posted, ChatError> {
        let buttons = self.buttons(buttons);
        self.inner
            .post(chat, &self.hidden.redact(text), &buttons)
            .await
    }

    async fn edit(&self, posted: &Posted, text: &str, buttons: &[Button]) -> Result<(), ChatError> {
        let buttons = self.buttons(buttons);
        self.inner
            .edit(posted, &self.hidden.redact(text), &buttons)
            .await
    }

    async fn acknowledge(&self, press: &str, text: &str) -> Result<(), ChatError> {
        self.inner
            .acknowledge(press, &self.hidden.redact(text))
            .await
    }

    async fn upload(&self, chat: &ChatId, name: &str, text: &str) -> Result<(), ChatError> {
        self.inner
            .upload(chat, name, &self.hidden.redact(text))
            .await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// A platform that keeps what it was given.
    #[derive(Default)]
    struct Kept(Mutex<Vec<String>>);

    #[async_trait]
    impl Platform for Kept {
        fn name(&self) -> &'static str {
            "kept"
        }
        fn max_chars(&self) -> usize {
            4096
        }
        fn edit_interval(&self) -> Duration {
            Duration::ZERO
        }
        async fn next(&self) -> Result<Vec<Incoming>, ChatError> {
            Ok(Vec::new())
        }
        async fn post(&self, chat: &ChatId, text: &str, b: &[Button]) -> Result<Posted, ChatError> {
            self.keep(text, b);
            Ok(Posted {
                chat: chat.clone(),
                message: "1".into(),
            })
        }
        async fn edit(&self, _: &Posted, text: &str, b: &[Button]) -> Result<(), ChatError> {
            self.keep(text, b);
            Ok(())
        }
        async fn acknowledge(&self, _: &str, text: &str) -> Result<(), ChatError> {
            self.keep(text, &[]);
            Ok(())
        }
        async fn upload(&self, _: &ChatId, name: &str, text: &str) -> Result<(), ChatError> {
            self.keep(&format!("{name}: {text}"), &[]);
            Ok(())
        }
    }

    impl Kept {
        fn keep(&self, text: &str, buttons: &[Button]) {
            let mut all = self.0.lock().unwrap();
            all.push(text.to_string());
            for b in buttons {
                all.push(b.label.clone());
                all.push(b.data.clone());
            }
        }
    }

    #[tokio::test]
    async fn no_part_of_a_post_carries_a_secret() {
        let kept = Arc::new(Kept::default());
        let key = "gw-secret-0123456789abcdef";
        let hidden = HiddenEnv::with_values(["MY_KEY".to_string()], |name| {
            (name == "MY_KEY").then(|| key.to_string())
        });
        let platform = Redacting {
            inner: kept.clone(),
            hidden,
        };
        let chat = ChatId {
            platform: "telegram",
            chat: "1".into(),
        };
        let leaky = [Button {
            label: format!("Allow Bash(curl -H 'x: {key}' …)"),
            data: format!("allow:{key}"),
        }];
        let posted = platform.post(&chat, key, &leaky).await.unwrap();
        platform.edit(&posted, key, &leaky).await.unwrap();
        platform.acknowledge("p", key).await.unwrap();
        platform.upload(&chat, "answer.md", key).await.unwrap();
        let all = kept.0.lock().unwrap();
        assert_eq!(all.len(), 8);
        for sent in all.iter() {
            assert!(!sent.contains(key), "{sent}");
        }
        assert!(all[1].contains("[redacted: $MY_KEY]"), "{}", all[1]);
    }
}
