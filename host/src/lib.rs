//! Ferrodyn host tooling.
