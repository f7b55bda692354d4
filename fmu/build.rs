//! Links the FMU library without debug information or a symbol table (`-s`): it travels in
//! every FMU, and importers need only its exported (dynamic) symbols, which stay. 7.5 MB with
//! the symbol table, 6.2 MB without (issue 38).

fn main() {
    println!("cargo:rustc-link-arg-cdylib=-Wl,--strip-all");
}
