//! What the fake chat platforms share to send rein a webhook: where rein's webhook server is,
//! one client, the status and body of rein's answer, and the time a signature is made at.

use std::sync::Mutex;

/// Seconds since the epoch (a webhook's timestamp now).
pub fn epoch_secs() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    i64::try_from(since.as_secs()).unwrap_or(i64::MAX)
}

/// Where a fake platform sends rein its webhooks (`http://127.0.0.1:…`), once told.
#[derive(Debug, Default)]
pub(crate) struct Rein(Mutex<Option<String>>);

impl Rein {
    /// rein's webhook server is at `url`.
    pub(crate) fn set(&self, url: &str) {
        *self.0.lock().unwrap_or_else(|p| p.into_inner()) = Some(url.to_string());
    }

    /// Posts `body` to rein's `path` with `headers`; the status rein answered, and its body.
    #[allow(clippy::panic)] // A test helper: failing the test is its job.
    pub(crate) async fn post(
        &self,
        path: &str,
        headers: &[(&str, String)],
        body: String,
    ) -> (u16, String) {
        let Some(rein) = self.0.lock().unwrap_or_else(|p| p.into_inner()).clone() else {
            panic!("the fake's deliver_to was not called");
        };
        let mut request = client().post(format!("{rein}{path}")).body(body);
        for (name, value) in headers {
            request = request.header(*name, value);
        }
        answered(request).await
    }
}

/// A client for the fakes' requests to rein.
pub(crate) fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

/// The status and body of the answer to `request`.
#[allow(clippy::panic)] // A test helper: failing the test is its job.
pub(crate) async fn answered(request: reqwest::RequestBuilder) -> (u16, String) {
    match request.send().await {
        Ok(response) => {
            let status = response.status().as_u16();
            (status, response.text().await.unwrap_or_default())
        }
        Err(e) => panic!("rein's webhook server did not answer: {e}"),
    }
}
