//! A platform whose posts and edits never carry a provider key or the bot's token: every
//! text is redacted on its way out, whoever wrote it (the model, a tool's output, an error).

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
        self.inner
            .post(chat, &self.hidden.redact(text), buttons)
            .await
    }

    async fn edit(&self, posted: &Posted, text: &str, buttons: &[Button]) -> Result<(), ChatError> {
        self.inner
            .edit(posted, &self.hidden.redact(text), buttons)
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
