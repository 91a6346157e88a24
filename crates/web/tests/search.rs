//! The search APIs rein calls, against a server on 127.0.0.1 speaking their documented JSON:
//! SearXNG's `format=json` answer (`results[].title/url/content`, docs.searxng.org "Search
//! API") and Brave's Web Search API (`web.results[].title/url/description`, the
//! `X-Subscription-Token` header; api-dashboard.search.brave.com "Web search API").

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Router;
use axum::http::{HeaderMap, Uri};
use axum::routing::get;
use rein_web::{SearchBackend, SearchError, in_domain};

fn pairs(uri: &Uri) -> HashMap<String, String> {
    url::form_urlencoded::parse(uri.query().unwrap_or("").as_bytes())
        .into_owned()
        .collect()
}

type Seen = Arc<Mutex<Vec<(HashMap<String, String>, Option<String>)>>>;

async fn serve(seen: Seen) -> String {
    let searx_seen = Arc::clone(&seen);
    let brave_seen = Arc::clone(&seen);
    let app = Router::new()
        .route(
            "/search",
            get(move |uri: Uri| {
                let q = pairs(&uri);
                let seen = Arc::clone(&searx_seen);
                async move {
                    seen.lock().unwrap().push((q, None));
                    axum::Json(serde_json::json!({
                        "query": "rust serde",
                        "number_of_results": 0,
                        "results": [
                            {"url": "https://serde.rs/", "title": "Serde", "content": "A framework", "engine": "duckduckgo"},
                            {"url": "https://docs.rs/serde", "title": "serde - Rust", "content": "docs"}
                        ],
                        "answers": [], "suggestions": []
                    }))
                }
            }),
        )
        .route(
            "/res/v1/web/search",
            get(move |uri: Uri, headers: HeaderMap| {
                let q = pairs(&uri);
                let seen = Arc::clone(&brave_seen);
                async move {
                    let token = headers
                        .get("x-subscription-token")
                        .map(|v| v.to_str().unwrap().to_string());
                    seen.lock().unwrap().push((q, token));
                    axum::Json(serde_json::json!({
                        "type": "search",
                        "web": {"type": "search", "results": [
                            {"title": "The Rust Book", "url": "https://doc.rust-lang.org/book/", "description": "Learn Rust", "type": "search_result"}
                        ]}
                    }))
                }
            }),
        )
        .route("/broken/search", get(|| async { "not json" }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}")
}

#[tokio::test]
async fn searxng_and_brave_answers_are_read_as_hits() {
    let seen = Seen::default();
    let base = serve(Arc::clone(&seen)).await;
    let searx = SearchBackend::Searxng { url: base.clone() };
    let hits = searx.search("rust serde", 10).await.unwrap();
    assert_eq!(hits.len(), 2);
    assert_eq!(
        (hits[0].title.as_str(), hits[0].url.as_str()),
        ("Serde", "https://serde.rs/")
    );
    assert_eq!(hits[0].snippet, "A framework");
    let brave = SearchBackend::Brave {
        url: base.clone(),
        key: "k-123".into(),
    };
    let hits = brave.search("rust book", 5).await.unwrap();
    assert_eq!(hits[0].url, "https://doc.rust-lang.org/book/");
    {
        let seen = seen.lock().unwrap();
        assert_eq!(seen[0].0["q"], "rust serde");
        assert_eq!(seen[0].0["format"], "json");
        assert_eq!(seen[1].0["count"], "5");
        assert_eq!(seen[1].1.as_deref(), Some("k-123"));
    }

    let broken = SearchBackend::Searxng {
        url: format!("{base}/broken"),
    };
    let error = broken.search("x", 3).await.unwrap_err();
    assert!(matches!(error, SearchError::Unreadable(_)), "{error}");
}

#[test]
fn domains_cover_their_subdomains_only() {
    assert!(in_domain("https://docs.rs/serde", "docs.rs"));
    assert!(in_domain("https://www.docs.rs/", "docs.rs"));
    assert!(in_domain("https://a.b.rust-lang.org/", "*.rust-lang.org"));
    assert!(!in_domain("https://notdocs.rs/", "docs.rs"));
    assert!(!in_domain("not a url", "docs.rs"));
}
