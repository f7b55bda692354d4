//! Element-level tests: patch tests, exact stretch, finite-difference checks (added next).
