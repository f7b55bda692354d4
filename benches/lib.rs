//! Ferrodyn's criterion benchmarks (`cargo bench -p ferrodyn-benches --bench NAME`, the list in
//! docs/performance.md). This library is empty: the package exists so that `cargo test
//! --workspace` does not build criterion.
