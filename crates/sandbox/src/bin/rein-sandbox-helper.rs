//! The native sandbox helper as its own binary, for the crate's tests and benchmarks; `rein`
//! runs the same code as `rein __sandbox …`.

fn main() -> std::process::ExitCode {
    rein_sandbox::helper::main(std::env::args_os().skip(1))
}
