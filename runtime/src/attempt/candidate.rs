//! The candidate: the tree speccoder stages from the agent's files, in its own store, with
//! its own index and settings (see `store.rs`), on top of the base.

use super::prepare::Prepared;

/// Stages the agent's tree and returns the candidate tree.
pub(crate) fn build(prepared: &Prepared) -> Result<String, String> {
    prepared
        .store
        .stage(&prepared.tree, &prepared.base, &prepared.scratch)
}
