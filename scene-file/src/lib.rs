//! # ferrodyn-scene-file
//!
//! A Ferrodyn scene file as written, before any checking: the serde types mirroring its TOML
//! tables ([`mod@format`]), and the file parsed into them ([`items::parse`]; large files item by
//! item on every core ([`parallel`]), flat item tables by a fast reader of their common
//! shape). `ferrodyn-host`'s `scene` module checks the raw scene and resolves its names; the
//! format is documented in `scenes/README.md`.
//!
//! A crate of its own for build time only: the generated deserializers compile here, beside
//! the host's heavy dependencies, not in the host library that waits for them
//! (docs/performance.md, "Build time").

mod flat;
pub mod format;
pub mod items;
pub mod parallel;
