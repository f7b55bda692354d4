//! With the `defmt` feature, links defmt's linker script (the log string table).
fn main() {
    if std::env::var_os("CARGO_FEATURE_DEFMT").is_some() {
        println!("cargo:rustc-link-arg=-Tdefmt.x");
    }
}
