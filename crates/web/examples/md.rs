//! Prints a saved HTML file as the Markdown web_fetch shows.
fn main() {
    let path = std::env::args().nth(1).unwrap_or_default();
    let html = std::fs::read_to_string(path).unwrap_or_default();
    println!("{}", rein_web::html_to_markdown(&html));
}
