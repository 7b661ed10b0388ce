//! `speccoder mcp`: the recipe tool served over the Model Context Protocol on stdio, so that
//! any agent runs the project's tasks through it, with its deadlines, caps and guidance.
//!
//! Hand-written on `serde_json` rather than the `rmcp` SDK: the server needs five methods
//! and three notifications, and rmcp's tree (tokio, futures, schemars, chrono, sha2) more
//! than doubled the CPU time of a clean build (docs/design/dependencies.md).

mod id;
mod jobs;
mod jsonrpc;
mod outbox;
mod session;
mod tool;

pub use session::serve;
