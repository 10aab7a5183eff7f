//! The `stiction` command.

fn main() {
    println!("stiction {}", env!("CARGO_PKG_VERSION"));
}
