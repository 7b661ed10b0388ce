//! The speccoder runtime: detects a project's task runners, resolves and runs their tasks,
//! and runs external coding agents with the project's allowances.

pub mod cli;
pub mod config;
pub mod process;
pub mod recipe;
