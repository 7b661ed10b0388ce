//! `recipe run` on a terminal shows the output as it comes, through a real pseudo-terminal
//! (Python's `pty`, which every CI image has).

use crate::support;

use std::process::Command;

/// Starts `speccoder recipe run OP` with a pty as stdout and a pipe as stderr; once `first`
/// shows on the terminal it creates `release`, which the task waits for. Prints JSON:
/// whether `first` came while the task was still waiting, everything the terminal got,
/// stderr, and the exit code.
const HARNESS: &str = r#"
import json, os, pty, subprocess, sys
bin, root, op = sys.argv[1:4]
main, child = pty.openpty()
proc = subprocess.Popen([bin, "-C", root, "recipe", "run", "--timeout", "30", op],
                        stdout=child, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
os.close(child)
seen, released_early = b"", False
while True:
    try:
        chunk = os.read(main, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    if b"first" in seen and not os.path.exists(os.path.join(root, "release")):
        released_early = proc.poll() is None
        open(os.path.join(root, "release"), "w").close()
err = proc.stderr.read().decode()
code = proc.wait()
print(json.dumps({"early": released_early, "terminal": seen.decode(), "stderr": err, "code": code}))
"#;

#[test]
fn output_reaches_the_terminal_before_the_task_ends() {
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("Makefile"),
        "wait:\n\t@echo first; while [ ! -f release ]; do sleep 0.05; done; echo second; exit 4\n",
    )
    .expect("Makefile");
    let root = dir.path().canonicalize().expect("canonical");
    let out = Command::new("python3")
        .arg("-c")
        .arg(HARNESS)
        .arg(env!("CARGO_BIN_EXE_speccoder"))
        .arg(&root)
        .arg("wait")
        .env("PATH", support::path_var())
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .output()
        .expect("python3 starts");
    assert!(out.status.success(), "{out:?}");
    let seen: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(seen["early"], true, "{seen}");
    // The terminal gets the task's output only (a pty turns \n into \r\n); the closing line
    // goes to stderr.
    assert_eq!(
        seen["terminal"], "first\r\nsecond\r\nmake: *** [Makefile:2: wait] Error 4\r\n",
        "{seen}"
    );
    let stderr = seen["stderr"].as_str().expect("text");
    assert!(
        stderr.starts_with("speccoder: exit code 2 after ") && stderr.ends_with('\n'),
        "{stderr:?}"
    );
    assert_eq!(seen["code"], 2);
}
