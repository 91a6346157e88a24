//! Fetched pages kept for [`FETCH_CACHE_TTL`], within a byte budget.

use std::collections::HashMap;
use std::time::Instant;

use crate::fetch::{FETCH_CACHE_TTL, Page};

/// Most bytes of pages kept in the cache.
const CACHE_BYTES: usize = 32 * 1024 * 1024;

/// Pages by URL, for [`FETCH_CACHE_TTL`], within [`CACHE_BYTES`].
#[derive(Debug, Default)]
pub(crate) struct Cache {
    pages: HashMap<String, (Instant, Page)>,
}

impl Cache {
    pub(crate) fn get(&mut self, url: &str) -> Option<Page> {
        self.pages
            .retain(|_, (at, _)| at.elapsed() < FETCH_CACHE_TTL);
        self.pages.get(url).map(|(_, page)| page.clone())
    }

    pub(crate) fn put(&mut self, url: &str, page: Page) {
        if page.text.len() > CACHE_BYTES / 4 {
            return;
        }
        while self
            .pages
            .values()
            .map(|(_, p)| p.text.len())
            .sum::<usize>()
            + page.text.len()
            > CACHE_BYTES
        {
            let oldest = self
                .pages
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(url, _)| url.clone());
            match oldest {
                Some(url) => self.pages.remove(&url),
                None => break,
            };
        }
        self.pages.insert(url.to_string(), (Instant::now(), page));
    }
}
