//! The native sandbox helper as a binary of this crate, so its integration tests run `bash`
//! in the sandbox rein builds (`rein` runs the same code as `rein __sandbox …`); without it
//! they would need bubblewrap.

fn main() -> std::process::ExitCode {
    rein_sandbox::helper::main(std::env::args_os().skip(1))
}
