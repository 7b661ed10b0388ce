//! Names the commit the binary is built from, for `speccoder --version`: `SPECCODER_COMMIT`
//! is the short hash of `HEAD`, or `unknown` outside a git checkout (a source archive).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_owned())
}

fn main() {
    let commit = git(&["rev-parse", "--short=12", "HEAD"]).unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=SPECCODER_COMMIT={commit}");
    // Built again when HEAD moves: a new commit, a checkout, a branch updated by a merge.
    if let Some(dir) = git(&["rev-parse", "--absolute-git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
        if let Some(reference) = git(&["symbolic-ref", "-q", "HEAD"])
            && let Some(common) = git(&["rev-parse", "--git-common-dir"])
        {
            let common = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(common);
            println!(
                "cargo:rerun-if-changed={}",
                common.join(&reference).display()
            );
            println!(
                "cargo:rerun-if-changed={}",
                common.join("packed-refs").display()
            );
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
