//! `scripts`: the executable scripts directly inside a `script/` or `scripts/` folder,
//! GitHub's "scripts to rule them all" convention (`script/bootstrap`, `script/test`;
//! httpx's `scripts/test`, `scripts/check`). Listing looks at the entries' names and modes
//! and reads the first 4 KiB of each executable file for its `#!` line and first comment;
//! it runs nothing.
//!
//! A script is a program of its own: `./scripts/test -k name -- x` hands every word to it
//! as written, with no tool in between to read any of them. So words after the task's name
//! reach the script unchanged, and an allowance admits any words.

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::detection::{Absence, Arguments, Context, RunnerDef};
use crate::files::Root;
use crate::quote::quote;
use crate::runner::{Runner, Task};

pub(crate) const RUNNER: RunnerDef = RunnerDef {
    id: "scripts",
    label: "Scripts",
    executes: "nothing: only the names and modes of the entries directly inside script/ and scripts/ are looked at, and the first 4 KiB of each executable regular file is read for its `#!` line and first comment; running a task runs that script, which may do anything",
    // No manifest: a `scripts/` folder is too common inside packages to make the folder
    // holding it a project root.
    detect,
    // The script gets every word as written: nothing stands between it and the shell.
    arguments: |_, _| Arguments::WithArguments,
    ..RunnerDef::BASE
};

/// The folders read, in this order (the convention's `script/` first); a name in both is
/// the first one's.
const FOLDERS: &[&str] = &["script", "scripts"];

/// How much of a script is read: enough for its `#!` line and the comment under it.
const HEAD_BYTES: u64 = 4 << 10;

/// The most entries of one folder looked at; real ones hold a handful.
const MAX_ENTRIES: usize = 1000;

fn detect(ctx: &Context<'_>) -> Result<Runner, Absence> {
    let inside = Root::new(ctx.root);
    // The prefix names the first folder found (`./script/` or `./scripts/`).
    let mut runner = Runner::new("scripts", "Scripts", "");
    let mut found_folder = false;
    for folder in FOLDERS {
        let path = ctx.root.join(folder);
        // Its list of entries decides the tasks, and creating it does too.
        ctx.depends_on(path.clone());
        let Ok(meta) = path.symlink_metadata() else {
            continue;
        };
        if meta.file_type().is_symlink() {
            runner
                .notes
                .push(format!("{folder}/ is a symlink; not followed"));
            continue;
        }
        if !meta.is_dir() {
            continue;
        }
        if !found_folder {
            runner.command_prefix = format!("./{folder}/");
        }
        found_folder = true;
        read_folder(ctx, &inside, folder, &path, &mut runner);
    }
    if !found_folder {
        return Err(Absence::Absent(
            "no script/ or scripts/ folder in the root".into(),
        ));
    }
    Ok(runner)
}

/// Lists the scripts of one folder into `runner`.
fn read_folder(ctx: &Context<'_>, inside: &Root, folder: &str, path: &Path, runner: &mut Runner) {
    let mut entries: Vec<(OsString, std::fs::FileType)> = Vec::new();
    let mut more = false;
    for entry in std::fs::read_dir(path).into_iter().flatten().flatten() {
        if entries.len() == MAX_ENTRIES {
            more = true;
            break;
        }
        if let Ok(kind) = entry.file_type() {
            entries.push((entry.file_name(), kind));
        }
    }
    if more {
        runner.notes.push(format!(
            "{folder}/ holds more than {MAX_ENTRIES} entries; only {MAX_ENTRIES} are read"
        ));
    }
    entries.sort_unstable_by(|a, b| a.0.cmp(&b.0));
    for (name, kind) in entries {
        let shown = format!("{folder}/{}", name.to_string_lossy());
        // Dotfiles (`.gitkeep`, an editor's swap file) are not scripts; folders are not
        // read (only what sits directly inside counts).
        if name.to_string_lossy().starts_with('.') || kind.is_dir() {
            continue;
        }
        let file = path.join(&name);
        // A chmod changes the file, not the folder: each file looked at is an input.
        ctx.depends_on(file.clone());
        let Some(name) = name.to_str() else {
            runner
                .notes
                .push(format!("{shown}: the name is not UTF-8; left out"));
            continue;
        };
        match script(inside, &file, kind) {
            Ok(Some(doc)) => runner.push_task(Task {
                name: name.to_owned(),
                command: command(folder, name),
                doc,
                params: Vec::new(),
                cwd: None,
            }),
            Ok(None) => {}
            Err(why) => runner.notes.push(format!("{shown} is left out: {why}")),
        }
    }
}

/// `./FOLDER/NAME`, quoted as one word when it needs to be (a path starting with `./` is
/// never read as an option).
fn command(folder: &str, name: &str) -> String {
    quote(&format!("./{folder}/{name}"))
}

/// Whether the entry at `file` is a script to list, with its doc: `Ok(None)` for a file
/// that is not executable (a README, a helper sourced by the others), an error for an
/// executable that cannot be one.
fn script(
    inside: &Root,
    file: &Path,
    kind: std::fs::FileType,
) -> Result<Option<Option<String>>, String> {
    // The mode of what a symlink leads to, once it is known to stay inside the root.
    let meta = if kind.is_symlink() {
        inside.check(file).map_err(|err| err.to_string())?;
        std::fs::metadata(file).map_err(|err| err.to_string())?
    } else {
        file.symlink_metadata().map_err(|err| err.to_string())?
    };
    if !meta.is_file() {
        // FIFOs, sockets and devices are never opened.
        return match meta.permissions().mode() & 0o111 {
            0 => Ok(None),
            _ => Err("it is not a regular file".into()),
        };
    }
    if meta.permissions().mode() & 0o111 == 0 {
        return Ok(None);
    }
    let head = inside
        .read_walked_prefix(file, HEAD_BYTES)
        .map_err(|err| err.to_string())?;
    match parse_head(&head) {
        Some(doc) => Ok(Some(doc)),
        None => Err("it is executable but has no `#!` line, so it is not a script".into()),
    }
}

/// The doc of a script from its first bytes: `None` when it does not start with `#!`;
/// else the first line of the comment right under the `#!` line, if any, or of a Python
/// docstring there. Skipped on the way: blank lines, tool directives (`# shellcheck
/// disable=…`, `# -*- coding -*-`), a PEP 723 `# /// script` metadata block, and copyright
/// and licence lines with the rest of their comment block (the Apache header's "you may
/// not use this file…" goes on for ten lines), none of which says what the script does.
pub(crate) fn parse_head(head: &[u8]) -> Option<Option<String>> {
    let rest = head.strip_prefix(b"#!")?;
    let text = String::from_utf8_lossy(rest);
    let mut lines = text.lines();
    lines.next();
    let mut in_metadata = false;
    let mut in_legal = false;
    for line in lines {
        let line = line.trim();
        if line.is_empty() {
            // A licence header ends at its block's end.
            in_legal = false;
            continue;
        }
        if in_metadata {
            in_metadata = line != "# ///";
            continue;
        }
        if in_legal && line.starts_with('#') {
            continue;
        }
        let Some(comment) = line.strip_prefix('#') else {
            return Some(docstring(line));
        };
        let comment = comment.trim();
        // PEP 723: `# /// TYPE` opens a block that `# ///` closes.
        if comment.starts_with("/// ") {
            in_metadata = true;
            continue;
        }
        if is_legal(comment) {
            in_legal = true;
            continue;
        }
        if comment.is_empty() || is_directive(comment) {
            continue;
        }
        return Some(Some(comment.to_owned()));
    }
    Some(None)
}

/// The first line of a Python docstring that starts on `line`.
fn docstring(line: &str) -> Option<String> {
    let body = ["\"\"\"", "'''", "r\"\"\"", "r'''"]
        .iter()
        .find_map(|open| line.strip_prefix(open))?;
    let body = body.split("\"\"\"").next().unwrap_or(body);
    let body = body.split("'''").next().unwrap_or(body).trim();
    (!body.is_empty()).then(|| body.to_owned())
}

/// Whether a comment is a copyright or licence line.
fn is_legal(comment: &str) -> bool {
    let lower = comment.to_ascii_lowercase();
    [
        "copyright",
        "(c) ",
        "©",
        "spdx-",
        "licensed under",
        "all rights reserved",
    ]
    .iter()
    .any(|start| lower.starts_with(start))
}

/// Whether a comment is meant for a tool rather than a reader.
fn is_directive(comment: &str) -> bool {
    ["shellcheck ", "-*-", "vim:", "vi:", "shfmt:", "ex:"]
        .iter()
        .any(|d| comment.starts_with(d))
        || comment.starts_with('!')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heads() {
        #[track_caller]
        fn case(head: &str, want: Option<Option<&str>>) {
            assert_eq!(
                parse_head(head.as_bytes()),
                want.map(|d| d.map(str::to_owned)),
                "{head:?}"
            );
        }
        case("echo hi\n", None);
        case("", None);
        case("#!/bin/sh\n", Some(None));
        case("#!/bin/sh -e\n\nset -x\n# Later.\n", Some(None));
        case(
            "#!/bin/sh\n\n# script/bootstrap: Resolve all dependencies.\n#   more\nset -e\n",
            Some(Some("script/bootstrap: Resolve all dependencies.")),
        );
        case(
            "#!/usr/bin/env bash\n# shellcheck disable=SC2086\n#\n#   Run the tests.  \n",
            Some(Some("Run the tests.")),
        );
        case(
            "#!/usr/bin/env python3\n# -*- coding: utf-8 -*-\n# Lint.\r\n",
            Some(Some("Lint.")),
        );
        // A comment cut by the 4 KiB read is what was read of it.
        case("#!/bin/sh\n# Build", Some(Some("Build")));
        // PEP 723 metadata and legal lines say nothing of what the script does; a
        // docstring after them does.
        case(
            "#!/usr/bin/env -S uv run --script\n# /// script\n# requires-python = \">=3.12\"\n# dependencies = [\"httpx\"]\n# ///\n\"\"\"Check the links of the docs.\"\"\"\nimport httpx\n",
            Some(Some("Check the links of the docs.")),
        );
        case(
            "#!/usr/bin/env python3\n# /// script\n# dependencies = []\n# ///\n# Release the wheels.\n",
            Some(Some("Release the wheels.")),
        );
        case(
            "#!/bin/bash\n# Copyright 2024 The Fleet Authors. All rights reserved.\n# SPDX-License-Identifier: Apache-2.0\n\n# Build the release images.\n",
            Some(Some("Build the release images.")),
        );
        case(
            "#!/bin/sh\n# (c) 2021 Someone\n# Licensed under the MIT license.\nset -e\n",
            Some(None),
        );
        // The Apache header: its block is the licence's, whatever its lines say; the doc
        // comes after it.
        case(
            "#!/usr/bin/env bash\n# Copyright 2025 The Loom Authors\n#\n# Licensed under the Apache License, Version 2.0 (the \"License\");\n# you may not use this file except in compliance with the License.\n# You may obtain a copy of the License at\n#\n#     http://www.apache.org/licenses/LICENSE-2.0\n#\n# limitations under the License.\n\n# Regenerate the protobuf stubs.\nset -e\n",
            Some(Some("Regenerate the protobuf stubs.")),
        );
        case(
            "#!/bin/sh\n# Copyright 2025 The Loom Authors\n# Use of this source code is governed by a BSD-style\n# license that can be found in the LICENSE file.\nset -e\n",
            Some(None),
        );
        // A block never closed within the bytes read gives no doc.
        case("#!/bin/sh\n# /// script\n# a\n# b\n", Some(None));
    }

    #[test]
    fn commands_are_one_word() {
        assert_eq!(command("scripts", "test"), "./scripts/test");
        assert_eq!(command("script", "it's"), "'./script/it'\\''s'");
    }
}
