//! `[attempt] known_failures`: the tests that may fail (exact ids, and globs marked
//! `glob:`), as `speccoder_config` compiles and bounds them.

pub(crate) use speccoder_config::KnownFailures;
