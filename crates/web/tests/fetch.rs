//! Fetching from a real HTTP server on 127.0.0.1: real documentation pages as Markdown,
//! redirects, caps, timeouts, binary bodies, and every private-address case refused unless
//! the user's config allows the host.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use rein_web::{FetchError, FetchLimits, Fetched, Fetcher, Reach};

const PYTHON: &str = include_str!("fixtures/docs.python.org-3.11-library-json.html");
const BOOK: &str =
    include_str!("fixtures/doc.rust-lang.org-book-ch03-01-variables-and-mutability.html");

fn html(body: &'static str) -> Response {
    ([(header::CONTENT_TYPE, "text/html; charset=utf-8")], body).into_response()
}

fn redirect(to: String) -> Response {
    (StatusCode::FOUND, [(header::LOCATION, to)]).into_response()
}

/// A server on 127.0.0.1 with the routes the tests use.
async fn serve() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let port = addr.port();
    let app = Router::new()
        .route("/python", get(|| async { html(PYTHON) }))
        .route("/book", get(|| async { html(BOOK) }))
        .route("/same", get(|| async { redirect("/python".into()) }))
        .route(
            "/elsewhere",
            get(move || async move { redirect(format!("http://localhost:{port}/python")) }),
        )
        .route("/again", get(|| async { redirect("/again".into()) }))
        .route(
            "/big",
            get(|| async {
                // 50 MB, streamed in 1 MB pieces.
                let chunk = bytes::Bytes::from(vec![b'a'; 1024 * 1024]);
                let stream = futures::stream::iter(
                    (0..50).map(move |_| Ok::<_, std::io::Error>(chunk.clone())),
                );
                (
                    [(header::CONTENT_TYPE, "text/plain")],
                    Body::from_stream(stream),
                )
            }),
        )
        .route(
            "/slow",
            get(|| async {
                tokio::time::sleep(Duration::from_secs(5)).await;
                "late"
            }),
        )
        .route(
            "/png",
            get(|| async {
                (
                    [(header::CONTENT_TYPE, "image/png")],
                    b"\x89PNG\r\n\x1a\n".to_vec(),
                )
            }),
        )
        .route("/gone", get(|| async { StatusCode::NOT_FOUND }));
    tokio::spawn(async move { axum::serve(listener, app).await });
    addr
}

/// A fetcher allowed to reach the test server (as a user's config would allow it).
fn allowed(addr: SocketAddr) -> Fetcher {
    Fetcher::new(Reach::new([addr.to_string()]), FetchLimits::default())
}

fn page(fetched: Fetched) -> rein_web::Page {
    match fetched {
        Fetched::Page(page) => page,
        other => panic!("a page expected: {other:?}"),
    }
}

#[tokio::test]
async fn real_documentation_pages_become_readable_markdown() {
    let addr = serve().await;
    let fetcher = allowed(addr);
    let python = page(
        fetcher
            .fetch(&format!("http://{addr}/python"))
            .await
            .unwrap(),
    );
    assert_eq!(python.content_type, "text/html");
    let md = &python.text;
    let start = &md[..2000.min(md.len())];
    // The page's main part, its title first: no navigation, no permalinks, no markup.
    assert!(md.starts_with("# [`json`](#module-json"), "{start}");
    assert!(start.contains("— JSON encoder and decoder\n"), "{start}");
    assert!(
        md.contains("```\n>>> import json\n>>> json.dumps(["),
        "{start}"
    );
    assert!(md.contains("**Source code:**"), "emphasis survives");
    assert!(!md.contains("Python Module Index"), "navigation left out");
    assert!(!md.contains("¶") && !md.contains("<div") && !md.contains("<script"));
    assert!(
        md.len() < PYTHON.len() / 2,
        "{} of {}",
        md.len(),
        PYTHON.len()
    );

    let book = page(fetcher.fetch(&format!("http://{addr}/book")).await.unwrap());
    let md = &book.text;
    assert!(
        md.starts_with("## [Variables and Mutability]"),
        "{}",
        &md[..2000.min(md.len())]
    );
    assert!(md.contains("```rust\nfn main() {\n    let x = 5;"), "{md}");
    assert!(md.contains("```console\n$ cargo run"), "{md}");
    assert!(!md.contains("<nav") && !md.contains("function("), "{md}");
}

#[tokio::test]
async fn same_host_redirects_are_followed_and_other_hosts_are_returned() {
    let addr = serve().await;
    let fetcher = allowed(addr);
    let followed = page(fetcher.fetch(&format!("http://{addr}/same")).await.unwrap());
    assert_eq!(followed.url, format!("http://{addr}/python"));
    let elsewhere = fetcher
        .fetch(&format!("http://{addr}/elsewhere"))
        .await
        .unwrap();
    assert_eq!(
        elsewhere,
        Fetched::Redirect {
            from: format!("http://{addr}/elsewhere"),
            to: format!("http://localhost:{}/python", addr.port()),
            status: 302,
        }
    );
    let looped = fetcher.fetch(&format!("http://{addr}/again")).await;
    assert_eq!(looped, Err(FetchError::Redirects(10)));
}

#[tokio::test]
async fn a_huge_body_is_cut_a_slow_server_times_out_and_binary_is_refused() {
    let addr = serve().await;
    let big = page(
        allowed(addr)
            .fetch(&format!("http://{addr}/big"))
            .await
            .unwrap(),
    );
    assert!(big.cut);
    assert_eq!(big.bytes, 10 * 1024 * 1024);

    let limits = FetchLimits {
        timeout: Duration::from_millis(300),
        ..FetchLimits::default()
    };
    let impatient = Fetcher::new(Reach::new([addr.to_string()]), limits);
    let slow = impatient.fetch(&format!("http://{addr}/slow")).await;
    assert_eq!(slow, Err(FetchError::Timeout(1)));

    let png = allowed(addr).fetch(&format!("http://{addr}/png")).await;
    assert!(
        matches!(&png, Err(FetchError::Binary { content_type, .. }) if content_type == "image/png"),
        "{png:?}"
    );
    let gone = allowed(addr).fetch(&format!("http://{addr}/gone")).await;
    assert!(
        matches!(gone, Err(FetchError::Status { status: 404, .. })),
        "{gone:?}"
    );
}

#[tokio::test]
async fn private_addresses_are_refused_without_the_users_config() {
    let addr = serve().await;
    let port = addr.port();
    let public_only = Fetcher::new(Reach::default(), FetchLimits::default());
    let cases = [
        format!("http://127.0.0.1:{port}/python"),
        format!("http://[::1]:{port}/python"),
        "http://169.254.169.254/latest/meta-data/".to_string(),
        "http://10.0.0.1/".to_string(),
        "http://192.168.1.1/".to_string(),
        "http://[::ffff:127.0.0.1]/".to_string(),
        // A name that resolves to loopback: refused by the resolver the connection uses.
        format!("http://localhost:{port}/python"),
    ];
    for url in cases {
        let refused = public_only.fetch(&url).await;
        assert!(
            matches!(&refused, Err(FetchError::Private { .. })),
            "{url}: {refused:?}"
        );
        let message = refused.unwrap_err().to_string();
        assert!(message.contains("allow_private_hosts"), "{message}");
    }
    let metadata = public_only
        .fetch("http://169.254.169.254/")
        .await
        .unwrap_err();
    assert!(
        metadata
            .to_string()
            .starts_with("refused: 169.254.169.254 is a local or private address"),
        "{metadata}"
    );
    let name = public_only
        .fetch(&format!("http://localhost:{port}/"))
        .await
        .unwrap_err();
    let said = name.to_string();
    assert!(
        said.starts_with("refused: localhost is 127.0.0.1, a local")
            || said.starts_with("refused: localhost is ::1, a local"),
        "{said}"
    );
    // Allowing one host:port allows nothing else on the machine.
    let one = allowed(addr);
    let other_name = one.fetch(&format!("http://localhost:{port}/python")).await;
    assert!(
        matches!(other_name, Err(FetchError::Private { .. })),
        "{other_name:?}"
    );
    // A redirect from the allowed host to loopback under another name is not followed.
    let redirected = one
        .fetch(&format!("http://{addr}/elsewhere"))
        .await
        .unwrap();
    assert!(
        matches!(redirected, Fetched::Redirect { .. }),
        "{redirected:?}"
    );
}

/// An allow entry names a port: `localhost:A` opens port A of that name, not every port of it
/// (the resolver sees no port, so the request's client is chosen by host and port).
#[tokio::test]
async fn an_allowed_host_and_port_opens_no_other_port_of_that_name() {
    let addr = serve().await;
    let port = addr.port();
    let other = serve().await.port();
    let one = Fetcher::new(
        Reach::new([format!("localhost:{port}")]),
        FetchLimits::default(),
    );
    let page = one.fetch(&format!("http://localhost:{port}/python")).await;
    assert!(matches!(page, Ok(Fetched::Page(_))), "{page:?}");
    for url in [
        format!("http://localhost:{other}/python"),
        format!("https://localhost:{other}/python"),
        "http://localhost/".to_string(),
    ] {
        let refused = one.fetch(&url).await;
        assert!(
            matches!(&refused, Err(FetchError::Private { .. })),
            "{url}: {refused:?}"
        );
    }
    // Control: an entry without a port opens every port of the name, as documented.
    let any = Fetcher::new(Reach::new(["localhost"]), FetchLimits::default());
    let page = any.fetch(&format!("http://localhost:{other}/python")).await;
    assert!(matches!(page, Ok(Fetched::Page(_))), "{page:?}");
}

#[tokio::test]
async fn plain_http_is_upgraded_and_other_schemes_are_refused() {
    let public_only = Fetcher::new(Reach::default(), FetchLimits::default());
    let file = public_only.fetch("file:///etc/passwd").await;
    assert!(matches!(file, Err(FetchError::BadUrl(_))), "{file:?}");
    let creds = public_only.fetch("https://user:pw@example.com/").await;
    assert!(matches!(creds, Err(FetchError::BadUrl(_))), "{creds:?}");
    // http://10.0.0.1 upgraded to https is still refused before any connection.
    let upgraded = public_only.fetch("http://10.0.0.1:80/x").await;
    assert!(
        matches!(upgraded, Err(FetchError::Private { .. })),
        "{upgraded:?}"
    );
}
