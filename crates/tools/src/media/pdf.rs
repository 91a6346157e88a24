//! PDFs for the model: the pages asked for (all of a short document; a range of a long one),
//! as the document itself for Anthropic and as each page's text for the other protocols.

use base64::Engine as _;
use rein_protocol::{ImageSource, Media};

/// Pages a PDF may have to be read whole; a longer one needs `pages`.
pub const WHOLE_PDF_PAGES: u32 = 10;
/// Most pages one read shows.
pub const MAX_PDF_PAGES: u32 = 20;
/// The largest PDF read (the Messages API takes 32 MB per request).
pub const MAX_PDF_BYTES: u64 = 32 * 1024 * 1024;

/// Why a PDF could not be shown.
#[derive(Debug, thiserror::Error)]
pub enum PdfError {
    /// Not a PDF lopdf can read (damaged, encrypted…).
    #[error("the PDF cannot be read ({0})")]
    Unreadable(String),
    /// Too many pages for one read, or none asked for of a long document.
    #[error(
        "it has {total} pages; read at most {MAX_PDF_PAGES} at a time with `pages`, such as \
         \"1-{first}\""
    )]
    TooManyPages {
        /// Pages in the document.
        total: u32,
        /// The end of a first range to suggest.
        first: u32,
    },
    /// `pages` is not a page or a range of the document.
    #[error(
        "`pages` must be a page or a range such as \"3\" or \"1-5\" within 1-{total}: {given:?}"
    )]
    BadRange {
        /// What the call said.
        given: String,
        /// Pages in the document.
        total: u32,
    },
}

/// A PDF's pages, ready for the model.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct PdfPages {
    /// The document block (the pages shown) with their text.
    pub media: Media,
    /// Pages in the document.
    pub total: u32,
    /// The pages shown, first and last (1-based).
    pub shown: (u32, u32),
}

impl PdfPages {
    /// One line for the model: what the document is and which pages it sees.
    pub fn describe(&self, name: &str) -> String {
        let (first, last) = self.shown;
        if (first, last) == (1, self.total) {
            return format!("{name}: PDF, {} pages.", self.total);
        }
        format!(
            "{name}: PDF, {} pages; pages {first}-{last} shown.",
            self.total
        )
    }
}

/// [`read_pdf`] as a bounded child runs it ([`rein_sandbox::bounded`]): the PDF's bytes in
/// (the pages asked for as the argument), the [`PdfPages`] out as JSON.
pub const PDF_PARSER: (&str, rein_sandbox::bounded::ParseFn) = ("pdf", |input, args| {
    let pages = read_pdf(input, args.first().map(String::as_str)).map_err(|e| e.to_string())?;
    serde_json::to_vec(&pages).map_err(|e| e.to_string())
});

/// [`read_pdf`] through `parsers`: in a child under limits in rein.
pub fn read_pdf_bounded(
    parsers: &rein_sandbox::bounded::Parsers,
    bytes: &[u8],
    pages: Option<&str>,
) -> Result<PdfPages, rein_sandbox::bounded::BoundedError> {
    let args: Vec<String> = pages.map(str::to_string).into_iter().collect();
    let out = parsers.run(PDF_PARSER, bytes, &args)?;
    serde_json::from_slice(&out).map_err(|e| rein_sandbox::bounded::BoundedError::Start {
        kind: "pdf".into(),
        message: format!("its answer was not a document ({e})"),
    })
}

/// The pages `pages` names of the PDF `bytes` (all of it when it is short and `pages` is
/// absent).
pub fn read_pdf(bytes: &[u8], pages: Option<&str>) -> Result<PdfPages, PdfError> {
    let mut document =
        lopdf::Document::load_mem(bytes).map_err(|e| PdfError::Unreadable(e.to_string()))?;
    inherit_resources(&mut document);
    let total = u32::try_from(document.get_pages().len()).unwrap_or(u32::MAX);
    if total == 0 {
        return Err(PdfError::Unreadable("it has no pages".into()));
    }
    let (first, last) = match pages {
        Some(range) => parse_range(range, total)?,
        None if total <= WHOLE_PDF_PAGES => (1, total),
        None => {
            return Err(PdfError::TooManyPages {
                total,
                first: MAX_PDF_PAGES.min(total),
            });
        }
    };
    if last - first + 1 > MAX_PDF_PAGES {
        return Err(PdfError::TooManyPages {
            total,
            first: first + MAX_PDF_PAGES - 1,
        });
    }
    let mut text = String::new();
    for page in first..=last {
        let page_text = document
            .extract_text(&[page])
            .unwrap_or_else(|e| format!("(no text could be read from this page: {e})"));
        text.push_str(&format!("--- page {page} ---\n{}\n", page_text.trim_end()));
    }
    let data = if (first, last) == (1, total) {
        bytes.to_vec()
    } else {
        let others: Vec<u32> = (1..=total).filter(|p| *p < first || *p > last).collect();
        document.delete_pages(&others);
        document.prune_objects();
        let mut out = Vec::new();
        document
            .save_to(&mut out)
            .map_err(|e| PdfError::Unreadable(e.to_string()))?;
        out
    };
    Ok(PdfPages {
        media: Media::Pdf {
            source: ImageSource {
                media_type: "application/pdf".into(),
                data: base64::engine::general_purpose::STANDARD.encode(data),
            },
            text,
        },
        total,
        shown: (first, last),
    })
}

/// Gives each page the resources (fonts) it inherits from its parents written inline on the
/// page itself: lopdf's text extraction looks for an inherited `Resources` only when it is a
/// reference, and finds no font (so no text) when a parent holds the dictionary inline.
fn inherit_resources(document: &mut lopdf::Document) {
    let pages: Vec<lopdf::ObjectId> = document.get_pages().into_values().collect();
    for page in pages {
        let Ok(dict) = document.get_dictionary(page) else {
            continue;
        };
        if dict.has(b"Resources") {
            continue;
        }
        let mut parent = dict
            .get(b"Parent")
            .and_then(lopdf::Object::as_reference)
            .ok();
        let mut found = None;
        // Bounded: a malformed tree may loop.
        for _ in 0..32 {
            let Some(id) = parent else { break };
            let Ok(node) = document.get_dictionary(id) else {
                break;
            };
            if let Ok(resources) = node.get(b"Resources") {
                found = Some(resources.clone());
                break;
            }
            parent = node
                .get(b"Parent")
                .and_then(lopdf::Object::as_reference)
                .ok();
        }
        if let (Some(resources), Ok(dict)) = (found, document.get_dictionary_mut(page)) {
            dict.set("Resources", resources);
        }
    }
}

/// `"3"` or `"1-5"` (or `"4-"`, to the end) within `1..=total`.
fn parse_range(range: &str, total: u32) -> Result<(u32, u32), PdfError> {
    let bad = || PdfError::BadRange {
        given: range.to_string(),
        total,
    };
    let number = |s: &str| s.trim().parse::<u32>().map_err(|_| bad());
    let (first, last) = match range.split_once('-') {
        Some((a, b)) if b.trim().is_empty() => (number(a)?, total),
        Some((a, b)) => (number(a)?, number(b)?),
        None => {
            let page = number(range)?;
            (page, page)
        }
    };
    if first == 0 || first > last || last > total {
        return Err(bad());
    }
    Ok((first, last))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lopdf::content::{Content, Operation};
    use lopdf::{Document, Object, Stream, dictionary};

    /// A PDF of `pages` pages, each saying "Page N of the test".
    pub(crate) fn make_pdf(pages: u32) -> Vec<u8> {
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font_id = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier",
        });
        let resources_id = doc.add_object(dictionary! {
            "Font" => dictionary! { "F1" => font_id },
        });
        let mut kids = Vec::new();
        for n in 1..=pages {
            let content = Content {
                operations: vec![
                    Operation::new("BT", vec![]),
                    Operation::new("Tf", vec!["F1".into(), 24.into()]),
                    Operation::new("Td", vec![72.into(), 700.into()]),
                    Operation::new(
                        "Tj",
                        vec![Object::string_literal(format!("Page {n} of the test"))],
                    ),
                    Operation::new("ET", vec![]),
                ],
            };
            let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
            let page_id = doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "Contents" => content_id,
            });
            kids.push(page_id.into());
        }
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages",
                "Kids" => kids,
                "Count" => pages,
                "Resources" => resources_id,
                "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
            }),
        );
        let catalog_id = doc.add_object(dictionary! {
            "Type" => "Catalog",
            "Pages" => pages_id,
        });
        doc.trailer.set("Root", catalog_id);
        let mut out = Vec::new();
        doc.save_to(&mut out).unwrap();
        out
    }

    fn text_of(pages: &PdfPages) -> &str {
        match &pages.media {
            Media::Pdf { text, .. } => text,
            other => panic!("not a PDF: {other:?}"),
        }
    }

    #[test]
    fn a_short_pdf_is_read_whole_and_a_range_keeps_only_its_pages() {
        let pdf = make_pdf(3);
        let whole = read_pdf(&pdf, None).unwrap();
        assert_eq!((whole.total, whole.shown), (3, (1, 3)));
        let text = text_of(&whole);
        assert!(
            text.contains("--- page 2 ---\nPage 2 of the test"),
            "{text}"
        );
        assert_eq!(whole.describe("a.pdf"), "a.pdf: PDF, 3 pages.");

        let part = read_pdf(&pdf, Some("2-3")).unwrap();
        assert_eq!(
            part.describe("a.pdf"),
            "a.pdf: PDF, 3 pages; pages 2-3 shown."
        );
        assert!(!text_of(&part).contains("Page 1 of"), "{}", text_of(&part));
        let Media::Pdf { source, .. } = &part.media else {
            panic!()
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&source.data)
            .unwrap();
        let sent = Document::load_mem(&bytes).unwrap();
        assert_eq!(
            sent.get_pages().len(),
            2,
            "the document sent holds the range only"
        );
    }

    #[test]
    fn a_long_pdf_asks_for_a_range_and_bad_input_is_a_clear_error() {
        let pdf = make_pdf(25);
        let error = read_pdf(&pdf, None).unwrap_err().to_string();
        assert_eq!(
            error,
            "it has 25 pages; read at most 20 at a time with `pages`, such as \"1-20\""
        );
        let error = read_pdf(&pdf, Some("1-25")).unwrap_err().to_string();
        assert!(error.contains("at most 20"), "{error}");
        assert_eq!(read_pdf(&pdf, Some("21-")).unwrap().shown, (21, 25));
        let error = read_pdf(&pdf, Some("0-3")).unwrap_err().to_string();
        assert!(error.contains("within 1-25"), "{error}");
        let error = read_pdf(b"%PDF-1.5\nnot really", None)
            .unwrap_err()
            .to_string();
        assert!(error.starts_with("the PDF cannot be read"), "{error}");
    }
}
