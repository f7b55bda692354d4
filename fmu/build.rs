//! Links the FMU library without debug information: the release profile keeps line tables
//! (`debug = 1`), which would make every exported FMU some 40 MB larger.

fn main() {
    println!("cargo:rustc-link-arg-cdylib=-Wl,--strip-debug");
}
