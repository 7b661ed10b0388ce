//! Values the stages hand each other.

pub(super) mod rules;
pub(super) mod story;
