//! The folders an agent's own sandbox must leave writable outside its worktree: the caches
//! of the project's runners (each runner's `caches`), and `[attempt] writable`.

use std::path::{Path, PathBuf};

use speccoder_runners::RunnerDef;

use speccoder_recipe::Recipe;

/// The caches of `recipe`'s runners on this machine, each made when missing: the tool would
/// make it at its first run, which the agent's sandbox refuses outside its writable roots
/// (a cold `go test` fails on `~/.cache/go-build`), and Codex refuses a writable root that
/// does not exist. A cache that cannot be made is left out. Then `extra`, as given.
pub fn writable_roots(recipe: Option<&Recipe>, extra: &[PathBuf]) -> Vec<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = var("HOME");
    let mut roots: Vec<PathBuf> = Vec::new();
    for runner in recipe.into_iter().flat_map(Recipe::runners) {
        let Some(def) = RunnerDef::of(runner.id) else {
            continue;
        };
        for cache in def.caches {
            if let Some(path) = cache.path(&var, home.as_deref())
                && made(&path)
                && let Ok(real) = path.canonicalize()
            {
                roots.push(real);
            }
        }
    }
    roots.extend(extra.iter().cloned());
    outermost(roots)
}

/// The caches a sandbox of speccoder's own sees through a private copy-on-write overlay:
/// those of [`writable_roots`] (`recipe`'s runners, made when missing), and every other
/// runner's cache that is a folder on this machine already, never made. A task of one
/// runner runs another's tools (`mise run test` runs `go test`, a Makefile runs `uv`), and
/// an overlay of a folder the sandbox shows read-only anyway gives away nothing: what the
/// command writes stays in its namespace. Measured: `mise run test` running `go test` in
/// a `svc/` module (no `go.mod` at the root, so no go runner) found `~/.cache/go-build`
/// read-only, so nothing it built was kept for the next check.
pub fn overlaid_caches(recipe: &Recipe) -> Vec<PathBuf> {
    let var = |name: &str| {
        std::env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let home = var("HOME");
    let mut roots = writable_roots(Some(recipe), &[]);
    for def in speccoder_runners::RUNNERS {
        for cache in def.caches {
            if let Some(path) = cache.path(&var, home.as_deref())
                && path.is_dir()
                && let Ok(real) = path.canonicalize()
            {
                roots.push(real);
            }
        }
    }
    outermost(roots)
}

/// Each of `roots` once, and none inside another (an inner one is the outer one twice).
fn outermost(mut roots: Vec<PathBuf>) -> Vec<PathBuf> {
    roots.sort();
    roots.dedup();
    let outer: Vec<PathBuf> = roots
        .iter()
        .filter(|root| !roots.iter().any(|o| o != *root && root.starts_with(o)))
        .cloned()
        .collect();
    outer
}

/// Whether `path` is a folder now, made (with its parents) if it was missing.
fn made(path: &Path) -> bool {
    path.is_dir() || std::fs::create_dir_all(path).is_ok_and(|()| path.is_dir())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inner_roots_fold_into_outer_ones() {
        let dir = tempfile::tempdir().expect("temp");
        let outer = dir.path().canonicalize().expect("real");
        let inner = outer.join("a/b");
        let roots = writable_roots(None, &[inner, outer.clone(), outer.join("c")]);
        assert_eq!(roots, [outer]);
    }
}
