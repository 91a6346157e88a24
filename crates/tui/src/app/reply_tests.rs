//! What a finished reply leaves above the prompt besides its text: the pages it cited.

use std::time::Instant;

use rein_protocol::Event;

use super::tests::{app, text};

#[test]
fn the_pages_a_reply_cites_are_listed_under_it() {
    let now = Instant::now();
    let mut app = app();
    app.submit("weather?".into(), now);
    app.event(
        Event::TextDelta {
            text: "Rain tonight.".into(),
        },
        now,
    );
    for (title, url) in [
        ("Forecast", "https://w.example/sf"),
        ("", "https://abc.example/"),
    ] {
        app.event(
            Event::Citation {
                title: title.into(),
                url: url.into(),
            },
            now,
        );
    }
    let message = rein_protocol::Message::assistant_text("Rain tonight.");
    app.event(Event::AssistantMessage { message }, now);
    let committed = text(&app.take_committed());
    assert!(
        committed
            .iter()
            .any(|l| l.contains("Sources: Forecast <https://w.example/sf>, <https://abc.example/>")),
        "{committed:?}"
    );
}
