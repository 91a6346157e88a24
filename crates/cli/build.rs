//! Links `rein` as a position-dependent executable on Linux: its code's own addresses are then
//! fixed at link time instead of patched by the dynamic loader at every start (about 26,000
//! relocations, 130 pages copied), which is most of what an `exec` of rein costs beyond a tiny
//! program's. rein is run again for every sandboxed shell call (`rein __sandbox`), so this is
//! half a millisecond per call; shared libraries, stack and heap stay randomised.

fn main() {
    let target = std::env::var("TARGET").unwrap_or_default();
    if target.contains("-linux-") {
        println!("cargo:rustc-link-arg-bin=rein=-no-pie");
    }
    println!("cargo:rerun-if-changed=build.rs");
}
