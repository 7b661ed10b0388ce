//! The integration tests of the `speccoder` binary, in one test binary: one module per
//! subject, `support` shared. One binary links once after a change, where one per file
//! linked some twenty times (`cargo nextest run -E 'test(/^controls::/)'` selects a module).

// A test binary exports nothing: the `pub` of its helpers is for its own modules.
#![allow(unreachable_pub, reason = "a test binary has no public interface")]
// A test reads as the script of what it checks, tables of cases included.
#![allow(
    clippy::too_many_lines,
    reason = "a test is one script of steps, read top to bottom"
)]

mod support;

mod agent;
mod agents_live;
mod attempt;
mod baseline;
mod cache;
mod cheats;
mod cli;
mod controls;
mod detection;
mod documented;
mod every_task_runs;
mod forgery;
mod hardening;
mod honest_steering;
mod honest_work;
mod live_output;
mod local_spawner;
mod mcp;
mod per_test;
mod readme;
mod real_projects;
mod recipe;
mod sandboxed_tools;
mod sensing;
mod setup_hooks;
mod spellings;
mod steering;
mod subprojects;
mod tool_listings;
mod twin_shapes;
mod twins;
mod untrusted;
mod verdict;
