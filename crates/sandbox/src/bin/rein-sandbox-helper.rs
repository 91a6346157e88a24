//! The native sandbox helper as its own binary, for the crate's tests and benchmarks; `rein`
//! runs the same code as `rein __sandbox …`. It also serves [`rein_sandbox::bounded`]'s
//! children with parsers made to meet each limit (the crate's tests start them).

use rein_sandbox::bounded::{self, ParseFn};

fn main() -> std::process::ExitCode {
    let mut args = std::env::args_os().skip(1).peekable();
    if args.peek().is_some_and(|a| a == bounded::SUBCOMMAND) {
        let parsers: [(&str, ParseFn); 6] = [
            ("echo", |input, args| {
                Ok([input, args.join(" ").as_bytes()].concat())
            }),
            ("refuse", |_, _| Err("not a document of this kind".into())),
            ("deep", |input, _| Ok(vec![depth(input.len() * 1000)])),
            ("hog", |_, _| {
                let mut all: Vec<Vec<u8>> = Vec::new();
                for _ in 0..64 {
                    all.push(vec![1; 64 * 1024 * 1024]);
                }
                Ok(vec![u8::try_from(all.len()).unwrap_or(0)])
            }),
            // Records its start and end in the folder named by its argument, a while apart.
            ("pause", |_, args| {
                let dir = std::path::Path::new(args.first().map_or("", String::as_str));
                let id = std::process::id();
                std::fs::write(dir.join(format!("start-{id}")), "").map_err(|e| e.to_string())?;
                std::thread::sleep(std::time::Duration::from_millis(300));
                std::fs::write(dir.join(format!("end-{id}")), "").map_err(|e| e.to_string())?;
                Ok(Vec::new())
            }),
            ("spin", |_, _| {
                let mut n: u64 = 0;
                loop {
                    n = std::hint::black_box(n.wrapping_add(1));
                }
            }),
        ];
        return bounded::main(args.skip(1), &parsers);
    }
    rein_sandbox::helper::main(args)
}

/// Recursion `n` calls deep, each frame holding a kilobyte.
fn depth(n: usize) -> u8 {
    let frame = std::hint::black_box([1u8; 1024]);
    if n == 0 {
        return frame[0];
    }
    depth(n - 1).wrapping_add(frame[n % 1024])
}
