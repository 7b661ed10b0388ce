//! Values the stages hand each other: the task bundle, the prepared attempt and what it
//! holds (rules, products, known failures, environments), a finding and a warning, a
//! check's result and its test summary, the verdict and the story. It may use `store/` and
//! the result readers' report types (`verdict/results/report.rs`), never a stage.

pub(super) mod bundle;
pub(super) mod check_result;
pub(super) mod declared;
pub(super) mod environment;
pub(super) mod finding;
pub(super) mod hidden;
pub(crate) mod imports;
pub(super) mod known_failures;
pub(super) mod prepared;
pub(super) mod products;
pub(super) mod pycache;
pub(super) mod rules;
pub(super) mod story;
pub(super) mod test_summary;
pub(super) mod verdict;
pub(super) mod warning;

pub(crate) use bundle::AttemptBundle;
pub use check_result::{CheckResult, Pass};
pub(crate) use declared::Declared;
pub(crate) use finding::MAX_READ_BYTES;
pub use finding::{Finding, FindingKind};
pub(crate) use known_failures::KnownFailures;
pub(crate) use prepared::{Isolation, Prepared, Withheld};
pub(crate) use products::SetupProducts;
pub(crate) use rules::{RanFrom, Rules};
pub use story::{AttemptRecord, AttemptRequest, Story};
pub use test_summary::{CanaryState, Rule, TestSummary, TwinsState};
pub use verdict::Verdict;
pub(crate) use warning::FileText;
pub use warning::Warning;
