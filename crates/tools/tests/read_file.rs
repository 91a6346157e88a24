use pretty_assertions::assert_eq;
use rein_tools::ToolOutput;
use serde_json::json;

use crate::support::Workspace;

fn numbered(range: std::ops::RangeInclusive<u32>) -> String {
    range.map(|i| format!("{i:>6}\tline {i}\n")).collect()
}

fn file_of_lines(n: u32) -> String {
    (1..=n).map(|i| format!("line {i}\n")).collect()
}

#[tokio::test]
async fn lines_are_numbered_like_cat_n() {
    let ws = Workspace::new();
    ws.write("src/a.rs", "fn main() {\r\n    println!();\n}");
    let out = ws.call("read_file", json!({"path": "src/a.rs"})).await;
    assert_eq!(
        out,
        ToolOutput::ok("     1\tfn main() {\n     2\t    println!();\n     3\t}\n")
    );
}

#[tokio::test]
async fn absolute_paths_inside_the_workspace_are_read() {
    let ws = Workspace::new();
    let path = ws.write("a.txt", "x\n");
    let out = ws
        .call("read_file", json!({"path": path.display().to_string()}))
        .await;
    assert_eq!(out, ToolOutput::ok("     1\tx\n"));
}

#[tokio::test]
async fn offset_and_limit_page_and_state_the_total() {
    let ws = Workspace::new();
    ws.write("big.txt", file_of_lines(10));
    let out = ws
        .call(
            "read_file",
            json!({"path": "big.txt", "offset": 3, "limit": 4}),
        )
        .await;
    assert_eq!(
        out,
        ToolOutput::ok(format!(
            "{}\n[showing lines 3-6 of 10; call read_file with offset=7 to read more]",
            numbered(3..=6)
        ))
    );
    let last = ws
        .call("read_file", json!({"path": "big.txt", "offset": 7}))
        .await;
    assert_eq!(
        last,
        ToolOutput::ok(format!(
            "{}\n[showing lines 7-10 of 10; end of file]",
            numbered(7..=10)
        ))
    );
}

#[tokio::test]
async fn default_limit_is_2000_lines() {
    let ws = Workspace::new();
    // Short lines, so 2000 of them fit in the output budget.
    let short = |i: u32| format!("{i:>6}\t{}\n", i % 10);
    ws.write(
        "big.txt",
        (1..=2500)
            .map(|i| format!("{}\n", i % 10))
            .collect::<String>(),
    );
    let out = ws.call("read_file", json!({"path": "big.txt"})).await;
    assert!(!out.is_error);
    assert!(out.text.starts_with(&format!("{}{}", short(1), short(2))));
    assert!(out.text.ends_with(&format!(
        "{}\n[showing lines 1-2000 of 2500; call read_file with offset=2001 to read more]",
        short(2000)
    )));
}

#[tokio::test]
async fn offset_past_the_end_is_an_error_stating_the_length() {
    let ws = Workspace::new();
    ws.write("a.txt", file_of_lines(3));
    let out = ws
        .call("read_file", json!({"path": "a.txt", "offset": 10}))
        .await;
    assert_eq!(
        out,
        ToolOutput::error("offset 10 is past the end of a.txt, which has 3 lines")
    );
}

#[tokio::test]
async fn long_lines_are_cut_with_a_marker() {
    let ws = Workspace::new();
    ws.write("wide.txt", format!("short\n{}\n", "é".repeat(3000)));
    let out = ws.call("read_file", json!({"path": "wide.txt"})).await;
    assert_eq!(
        out,
        ToolOutput::ok(format!(
            "     1\tshort\n     2\t{} [... line cut: 3000 characters in all]\n",
            "é".repeat(2000)
        ))
    );
}

#[tokio::test]
async fn huge_pages_stop_at_the_byte_budget_and_say_where_to_continue() {
    let ws = Workspace::new();
    let line = "y".repeat(1000);
    ws.write("wide.txt", format!("{line}\n").repeat(300));
    let out = ws.call("read_file", json!({"path": "wide.txt"})).await;
    assert!(!out.is_error);
    // Each numbered line takes 1008 bytes; the page keeps within the output budget's room
    // (29,700 bytes by default), so the budget never has to cut it.
    assert!(
        out.text.len() <= rein_tools::DEFAULT_OUTPUT_LIMIT,
        "{}",
        out.text.len()
    );
    assert!(
        out.text.ends_with(
            "\n[showing lines 1-29 of 300 (the page stopped at 29700 bytes); \
             call read_file with offset=30 to read more]"
        ),
        "{}",
        &out.text[out.text.len() - 200..]
    );
}

#[tokio::test]
async fn empty_file_says_it_is_empty() {
    let ws = Workspace::new();
    ws.write("empty.txt", "");
    let out = ws.call("read_file", json!({"path": "empty.txt"})).await;
    assert_eq!(out, ToolOutput::ok("(the file empty.txt is empty)"));
}

#[tokio::test]
async fn binary_files_and_images_are_refused() {
    let ws = Workspace::new();
    ws.write("blob.bin", b"\x7fELF\x02\x01\x01\x00\x00\x00");
    ws.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR");
    let bin = ws.call("read_file", json!({"path": "blob.bin"})).await;
    assert_eq!(
        bin,
        ToolOutput::error(
            "blob.bin looks like a binary file (10 bytes); read_file shows text files only \
             (bash `file blob.bin` or `xxd blob.bin | head` can inspect it)"
        )
    );
    let png = ws.call("read_file", json!({"path": "logo.png"})).await;
    assert!(png.is_error && png.media.is_empty(), "{png:?}");
    assert!(
        png.text
            .starts_with("logo.png is a PNG file, but the picture cannot be decoded"),
        "{}",
        png.text
    );
}

#[tokio::test]
async fn a_picture_is_shown_as_an_image_scaled_to_the_long_side() {
    use base64::Engine as _;
    let ws = Workspace::new();
    let photo = image::RgbImage::from_fn(4000, 3000, |x, y| {
        image::Rgb([(x / 16) as u8, (y / 12) as u8, 128])
    });
    let mut png = Vec::new();
    photo
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .unwrap();
    ws.write("shots/photo.png", png);
    let out = ws
        .call("read_file", json!({"path": "shots/photo.png"}))
        .await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(
        out.text,
        "shots/photo.png: PNG image, 4000×3000 pixels, shown scaled down to 1568×1176."
    );
    let [rein_protocol::Media::Image { source }] = out.media.as_slice() else {
        panic!("one image expected: {:?}", out.media.len())
    };
    assert_eq!(source.media_type, "image/jpeg");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(&source.data)
        .unwrap();
    let sent = image::load_from_memory(&bytes).unwrap();
    assert_eq!((sent.width(), sent.height()), (1568, 1176));
}

#[tokio::test]
async fn missing_file_and_directory_are_errors_naming_the_path() {
    let ws = Workspace::new();
    ws.write("src/lib.rs", "");
    let missing = ws.call("read_file", json!({"path": "src/nope.rs"})).await;
    assert_eq!(missing, ToolOutput::error("file not found: src/nope.rs"));
    let dir = ws.call("read_file", json!({"path": "src"})).await;
    assert_eq!(
        dir,
        ToolOutput::error("src is a directory, not a file; to list it use glob or bash `ls src`")
    );
}

#[tokio::test]
async fn paths_escaping_the_workspace_are_refused() {
    let ws = Workspace::new();
    std::fs::write(ws.outside.join("secret.txt"), "s3cret\n").unwrap();
    std::os::unix::fs::symlink(&ws.outside, ws.root.join("link")).unwrap();
    for path in ["../outside/secret.txt", "link/secret.txt"] {
        let out = ws.call("read_file", json!({"path": path})).await;
        assert_eq!(
            out,
            ToolOutput::error(format!(
                "path {path} is outside the workspace {}; only paths inside the workspace are allowed",
                ws.root.display()
            ))
        );
    }
}

#[tokio::test]
async fn a_pdf_is_shown_as_a_document_with_its_pages_text() {
    let ws = Workspace::new();
    ws.write(
        "docs/spec.pdf",
        include_bytes!("fixtures/three-pages.pdf").as_slice(),
    );
    let out = ws.call("read_file", json!({"path": "docs/spec.pdf"})).await;
    assert!(!out.is_error, "{}", out.text);
    assert_eq!(out.text, "docs/spec.pdf: PDF, 3 pages.");
    let [rein_protocol::Media::Pdf { source, text }] = out.media.as_slice() else {
        panic!("one PDF expected: {:?}", out.media.len())
    };
    assert_eq!(source.media_type, "application/pdf");
    assert!(
        text.contains("--- page 3 ---\nPage 3 of the test"),
        "{text}"
    );
    let two = ws
        .call("read_file", json!({"path": "docs/spec.pdf", "pages": "2"}))
        .await;
    assert_eq!(two.text, "docs/spec.pdf: PDF, 3 pages; pages 2-2 shown.");
    let bad = ws
        .call("read_file", json!({"path": "docs/spec.pdf", "pages": "5"}))
        .await;
    assert!(
        bad.is_error && bad.text.contains("within 1-3"),
        "{}",
        bad.text
    );
}
