//! Sending events. A front end that stopped listening is no failure of the engine, so a send
//! never fails: this says it once, instead of `let _ =` at every send.

use rein_protocol::Event;

use crate::EventSender;

/// Where the engine's events go; a closed receiver drops them.
pub(crate) trait Emitter {
    /// Sends `event`.
    fn emit(&self, event: Event);

    /// Sends an [`Event::Error`] saying `message`.
    fn error(&self, message: impl Into<String>) {
        self.emit(Event::Error {
            message: message.into(),
        });
    }
}

impl Emitter for EventSender {
    fn emit(&self, event: Event) {
        // No receiver: no one is listening any more, and nothing is lost that they wanted.
        let _ = self.send(event);
    }
}
