//! rein's agent loop.
#![deny(missing_docs)]
