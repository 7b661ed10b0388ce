//! What a candidate's setup changed in `node_modules`. An install writes a package's files
//! as its tarball (or its folder) holds them, and the same version of a package is the same
//! files: npm, pnpm and yarn each made byte-identical copies of an unchanged dependency when
//! run again with another dependency added. So a file of a package whose `package.json`
//! (its name and version) is the base's, and whose bytes are not the base's, was written
//! by code of the install: a local `file:` dependency's `postinstall` rewriting
//! `node_modules/jest-circus/build/utils.js` runs in every check and the audit never read
//! it.
//!
//! Left honest: new files (an install script's build output, a cache), a package of
//! another version, the hidden folders (`.bin`, `.cache`, `.pnpm`'s own files, `.prisma`),
//! a file the candidate's own folder holds with the same bytes (npm's `--install-links`
//! copies a `file:` folder; its hidden lockfile says `resolved: "file:vendor/x"`), and
//! pnpm's `name@file+…` folders. npm and pnpm link a `link:`, `file:` or workspace folder
//! by default, so its files are the candidate's own, which the audit reads, and the links
//! are not followed.

use std::path::Path;

use super::read::{content, same};

/// Why `path` (under a `node_modules` folder) of the candidate's products (`own`, a tree),
/// unlike the base's (`base`), is no install's, or `None`.
pub(super) fn judge(own: &Path, base: Option<&Path>, path: &str) -> Option<String> {
    let at = path.rfind("node_modules/")? + "node_modules/".len();
    let (folder, rest) = path.split_at(at);
    let first = rest.split('/').next()?;
    if first.starts_with('.') || folder.contains("@file+") || folder.contains("@link+") {
        return None;
    }
    let name_len = if first.starts_with('@') {
        first.len() + 1 + rest[first.len() + 1..].split('/').next()?.len()
    } else {
        first.len()
    };
    let name = rest.get(..name_len)?;
    let inner = rest.get(name_len + 1..).filter(|i| !i.is_empty())?;
    let manifest = format!("{folder}{name}/package.json");
    let base = base?;
    if inner == "package.json" || !speccoder_foundation::files::exists(&base.join(path)) {
        return None;
    }
    if content(base, &manifest) != content(own, &manifest) || own_source(own, folder, name, inner) {
        return None;
    }
    Some(format!(
        "changed `{inner}` of the package `{name}`, whose package.json (its version) is the base's: an install writes the same files for the same version, so code the audit never read wrote this (a local dependency's install script?)"
    ))
}

/// Whether npm's hidden lockfile (`node_modules/.package-lock.json` of the project whose
/// install folder holds `folder`) says the package `name` there was installed from a
/// folder of the candidate's tree (`resolved: "file:vendor/x"`, npm's `--install-links`),
/// and that folder holds `inner` with the same bytes: the candidate's own source.
fn own_source(own: &Path, folder: &str, name: &str, inner: &str) -> bool {
    let project = &folder[..folder.find("node_modules/").unwrap_or(0)];
    let lock = content(own, &format!("{project}node_modules/.package-lock.json"))
        .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok());
    let key = format!("{folder}{name}");
    let key = key.strip_prefix(project).unwrap_or(&key);
    let source = lock.and_then(|lock| {
        let resolved = lock["packages"][key]["resolved"].as_str()?.to_owned();
        resolved.strip_prefix("file:").map(str::to_owned)
    });
    source.is_some_and(|dir| {
        let mine = format!("{folder}{name}/{inner}");
        same(own, &mine, own, &format!("{project}{dir}/{inner}"))
    })
}
