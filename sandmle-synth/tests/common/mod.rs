//! What the tests of bundled seeds share: reading a seed, and the seeds
//! whose rows are a table.

#![allow(dead_code)]

use sandmle_core::Environment;

/// A bundled seed, read from `examples/seeds/<name>`.
pub fn seed(name: &str) -> Environment {
    Environment::read(format!("{}/../examples/seeds/{name}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

/// Every bundled seed whose rows are a table (all but the image seed).
pub const TABLE_SEEDS: [&str; 11] = [
    "bikeshare",
    "breast_cancer",
    "caravan",
    "default",
    "diabetes",
    "digits",
    "flights",
    "oj",
    "sms_spam",
    "wage",
    "wine",
];
