//! What a candidate's setup changed in `node_modules`. An install writes a package's files
//! as its tarball (or its folder) holds them, and the same version of a package is the same
//! files: npm, pnpm and yarn each made byte-identical copies of an unchanged dependency when
//! run again with another dependency added. So a file of a package whose `package.json`
//! names the base's name and version, and whose bytes are not the base's, was written
//! by code of the install: a local `file:` dependency's `postinstall` rewriting
//! `node_modules/jest-circus/build/utils.js` runs in every check and the audit never read
//! it.
//!
//! Left honest: new files (an install script's build output, a cache), a package of
//! another version, the hidden folders (`.bin`, `.cache`, `.pnpm`'s own files, `.prisma`),
//! a file the candidate's own folder holds with the same bytes (npm's `--install-links`
//! and yarn 1 copy a `file:` folder the project's `package.json` names), and pnpm's
//! `name@file+…` folders. npm and pnpm link a `link:`, `file:` or workspace folder
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
        first.len() + 1 + rest.get(first.len() + 1..)?.split('/').next()?.len()
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
    if identity(base, &manifest) != identity(own, &manifest) || own_source(own, folder, name, inner)
    {
        return None;
    }
    Some(format!(
        "changed `{inner}` of the package `{name}`, whose package.json (its version) is the base's: an install writes the same files for the same version, so code the audit never read wrote this (a local dependency's install script?)"
    ))
}

/// A package's name and version, from its `package.json` at `manifest` of `root` (its
/// other fields may change with no new install: an install script can add one).
fn identity(root: &Path, manifest: &str) -> Option<(String, String)> {
    let json = content(root, manifest)
        .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok())?;
    let field = |key: &str| json[key].as_str().unwrap_or_default().to_owned();
    Some((field("name"), field("version")))
}

/// Whether the project whose install folder holds `folder` names the package `name` as a
/// folder of its own (`"victim": "file:vendor/victim"` in its `package.json`'s
/// dependencies), and that folder holds `inner` with the same bytes: the candidate's own
/// source, copied (npm's `--install-links`, yarn 1).
fn own_source(own: &Path, folder: &str, name: &str, inner: &str) -> bool {
    let project = &folder[..folder.find("node_modules/").unwrap_or(0)];
    let Some(manifest) = content(own, &format!("{project}package.json"))
        .and_then(|t| serde_json::from_slice::<serde_json::Value>(&t).ok())
    else {
        return false;
    };
    let kinds = ["dependencies", "devDependencies", "optionalDependencies"];
    kinds.iter().any(|kind| {
        manifest[kind][name]
            .as_str()
            .and_then(|spec| spec.strip_prefix("file:"))
            .is_some_and(|dir| {
                let dir = dir.trim_start_matches("./").trim_end_matches('/');
                let copy = format!("{folder}{name}/{inner}");
                same(own, &copy, own, &format!("{project}{dir}/{inner}"))
            })
    })
}
