//! rein's reach to the web. [`Fetcher`] gets a page for `web_fetch`: HTTPS (plain HTTP is
//! upgraded), never to a loopback, link-local or private address unless the user's own
//! config allows that host ([`Reach`]), checked after DNS resolution, at connect time (the
//! addresses the connection uses are the checked ones, so a name that resolves elsewhere the
//! second time gains nothing) and on every redirect; redirects followed on the same host only;
//! the body capped; HTML turned into Markdown; answers cached for 15 minutes.

mod addresses;
mod cache;
mod fetch;
mod markdown;
mod search;

pub use addresses::{Reach, is_public};
pub use fetch::{FETCH_CACHE_TTL, FetchError, FetchLimits, Fetched, Fetcher, Page};
pub use markdown::{HTML_PARSER, html_to_markdown};
pub use search::{Hit, SearchBackend, SearchError, in_domain};
