//! The recipe tool end to end: prompts, error texts, arguments reaching tasks on every real
//! runner, and running tasks through the CLI.

use crate::support;

use std::process::{Command, Output};

use speccoder_config::RecipeConfig;
use support::{
    Fixtures, detect, fixture_names, path_var, require_tools, sh, snapshots, speccoder, table,
};

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Property: the prompt of every fixture is what its snapshot says (reviewed by hand).
#[test]
fn prompt_of_every_fixture() {
    require_tools(&["just", "task", "pnpm", "yarn", "bun"]);
    let fixtures = Fixtures::copy();
    for name in fixture_names() {
        let recipe = detect(&fixtures.path(&name), &RecipeConfig::default());
        let prompt = recipe.prompt().unwrap_or_else(|| "(no recipe tool)".into());
        snapshots("prompt").bind(|| insta::assert_snapshot!(name.clone(), prompt));
    }
}

#[test]
fn prompt_structure_survives_hostile_text() {
    require_tools(&["task"]);
    let fixtures = Fixtures::copy();
    let recipe = detect(&fixtures.path("hostile"), &RecipeConfig::default());
    let prompt = recipe.prompt().expect("runners detected");
    // One opening and one closing tag per detected runner, each alone on its line.
    let runners = recipe.runners().count();
    let opens = prompt.lines().filter(|l| l.starts_with("<runner ")).count();
    let closes = prompt.lines().filter(|l| *l == "</runner>").count();
    assert_eq!((opens, closes), (runners, runners));
    assert_eq!(prompt.matches("<runner").count(), runners);
    assert_eq!(prompt.matches("</runner>").count(), runners);
    // Inside the blocks, every line is a bullet holding one task (or the closing bullet).
    let mut inside = false;
    for line in prompt.lines() {
        if line.starts_with("<runner ") {
            inside = true;
        } else if line == "</runner>" {
            inside = false;
        } else if inside && !line.starts_with("- … and ") {
            assert!(line.starts_with("- `"), "{line}");
            assert_eq!(line.matches(" (`").count(), 1, "{line}");
        }
    }
}

#[test]
fn task_limit_and_more_bullet() {
    let fixtures = Fixtures::copy();
    let config = RecipeConfig {
        task_limit: 20,
        ..RecipeConfig::default()
    };
    let recipe = detect(&fixtures.path("pkg-many"), &config);
    let prompt = recipe.prompt().expect("detected");
    assert_eq!(
        prompt.lines().filter(|l| l.starts_with("- `job")).count(),
        20
    );
    assert!(
        prompt.contains("- … and 5 more tasks not listed here; they run the same way by name.")
    );
    // The hidden ones still resolve and run.
    let resolved = recipe.resolve("job25").expect("resolves");
    assert_eq!(resolved.command, "npm run 'job25'");
}

/// Every error text of op resolution, as one reviewed snapshot.
#[test]
fn resolution_error_texts() {
    require_tools(&["just"]);
    let fixtures = Fixtures::copy();
    let recipe = detect(&fixtures.path("polyglot"), &RecipeConfig::default());
    let mut all = String::new();
    for op in [
        "",
        "   ",
        "pkg:nope",
        "just:",
        "make:tset",
        "test",
        "tset",
        "zzz",
        "lnt",
    ] {
        let err = recipe.resolve(op).expect_err("does not resolve");
        all.push_str(&format!("### op {op:?}\n{err}\n\n"));
    }
    snapshots("errors").bind(|| insta::assert_snapshot!("resolution_errors", all));
}

#[test]
fn cli_resolve_and_its_exit_codes() {
    require_tools(&["pnpm"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("pkg-pnpm-workspace");
    let out = speccoder(
        &root,
        &["recipe", "resolve", "--json", "@demo/web/args", "--", "--x"],
    );
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        json,
        serde_json::json!({
            "runner": "pkg",
            "task": "@demo/web/args",
            "command": "pnpm run 'args' --x",
            "cwd": "apps/web",
        })
    );
    // All words, or one quoted string: the same op.
    let split = speccoder(&root, &["recipe", "resolve", "build", "--watch", "x"]);
    let joined = speccoder(&root, &["recipe", "resolve", "build --watch x"]);
    assert_eq!(stdout(&split), "pnpm run 'build' --watch x\n");
    assert_eq!(stdout(&split), stdout(&joined));
    let out = speccoder(&root, &["recipe", "resolve", "nope"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&out.stderr).starts_with("error: no runner task named `nope`.")
    );
    let out = speccoder(&root, &["recipe", "run", "nope"]);
    assert_eq!(out.status.code(), Some(2));
}

/// The words an `args` task printed, one per `arg:` line.
fn printed_args(output: &str) -> Vec<String> {
    output
        .lines()
        .filter_map(|l| l.strip_prefix("arg:"))
        .map(str::to_owned)
        .collect()
}

table! {
    /// Property: on every runner, a task that prints its arguments receives exactly the words
    /// of the op's tail — with and without a leading `--` where the runner treats `--` as a
    /// separator, and as written where it does not (just).
    arguments_reach_the_task_on_every_runner: arguments_reach_the_task(&'static str) {
        pkg_npm: "pkg-npm",
        pkg_yarn1: "pkg-yarn1",
        pkg_bun: "pkg-bun",
        pkg_yarn_berry: "pkg-yarn-berry",
        pkg_pnpm_workspace: "pkg-pnpm-workspace",
        just: "just",
        task: "task",
        cargo_single: "cargo-single",
        // Python: poe, a hatch script with `{args}`, and entry points through uv and poetry.
        python_poetry: "python-poetry",
        python_src_layout: "python-src-layout",
        python_uv: "python-uv",
        // make reads the words after the target as its own: goals and variables, as written.
        make_rules: "make-rules",
        // mise and composer read words before `--`; deno hands every word on as written.
        mise_go: "mise-go",
        composer_app: "composer-app",
        deno_workspace: "deno-workspace",
    }
}

/// The ops of `fixture` whose tasks print their arguments, each run with the words of one
/// tail: they must print exactly those words.
fn arguments_reach_the_task(fixture: &'static str) {
    require_tools(&[
        "just",
        "task",
        "pnpm",
        "yarn",
        "yarn-berry",
        "bun",
        "poe",
        "hatch",
        "uv",
        "poetry",
        "mise",
        "deno",
        "composer",
    ]);
    let fixtures = Fixtures::copy();
    let words = ["--watch", "a b", "$HOME", "it's"];
    let tail = "--watch 'a b' '$HOME' \"it's\"";
    let plain: Vec<String> = words.iter().map(|w| (*w).to_owned()).collect();
    let mut with_dash = vec!["--".to_owned()];
    with_dash.extend(plain.iter().cloned());
    // A `--` in the middle of the tail is a word like any other (yarn 1 dropped the words
    // before it).
    let mut middle = plain.clone();
    middle.extend(["--".to_owned(), "x".to_owned()]);
    #[track_caller]
    fn case(fixtures: &Fixtures, fixture: &str, op: &str, want: &[String]) {
        let root = fixtures.path(fixture);
        let recipe = detect(&root, &RecipeConfig::default());
        let resolved = recipe.resolve(op).expect("resolves");
        let cwd = resolved.cwd.map_or(root.clone(), |c| root.join(c));
        let out = sh(&resolved.command, &cwd, std::time::Duration::from_secs(300));
        let text = out.stdout.text();
        assert!(
            out.success(),
            "{fixture}: `{}` failed:\n{text}",
            resolved.command
        );
        assert_eq!(
            printed_args(&text),
            want,
            "{fixture}: `{}`:\n{text}",
            resolved.command
        );
    }
    match fixture {
        "pkg-npm" | "pkg-yarn1" | "pkg-bun" | "pkg-yarn-berry" => {
            if fixture == "pkg-yarn-berry" {
                support::prepare_yarn_berry(&fixtures.path(fixture));
            }
            case(&fixtures, fixture, &format!("args {tail}"), &plain);
            case(&fixtures, fixture, &format!("args -- {tail}"), &plain);
            case(&fixtures, fixture, &format!("args {tail} -- x"), &middle);
        }
        "pkg-pnpm-workspace" => {
            case(
                &fixtures,
                fixture,
                &format!("@demo/web/args {tail}"),
                &plain,
            );
            case(
                &fixtures,
                fixture,
                &format!("@demo/web/args -- {tail}"),
                &plain,
            );
            case(&fixtures, fixture, &format!("pkg:args -- {tail}"), &plain);
        }
        "just" => {
            case(&fixtures, fixture, &format!("args {tail}"), &plain);
            case(&fixtures, fixture, &format!("args -- {tail}"), &with_dash);
        }
        "task" => case(&fixtures, fixture, &format!("args -- {tail}"), &plain),
        "mise-go" | "composer-app" => {
            case(&fixtures, fixture, &format!("args {tail}"), &plain);
            case(&fixtures, fixture, &format!("args -- {tail}"), &plain);
            case(&fixtures, fixture, &format!("args {tail} -- x"), &middle);
        }
        "deno-workspace" => {
            case(&fixtures, fixture, &format!("args {tail}"), &plain);
            case(&fixtures, fixture, &format!("args -- {tail}"), &with_dash);
            case(&fixtures, fixture, &format!("args {tail} -- x"), &middle);
        }
        "cargo-single" => case(&fixtures, fixture, &format!("bin/single -- {tail}"), &plain),
        "python-poetry" | "python-src-layout" | "python-uv" => {
            if fixture == "python-poetry" {
                support::prepare_poetry(&fixtures.path(fixture));
            }
            let ops: &[&str] = match fixture {
                "python-poetry" => &["args", "run/ledgerly"],
                "python-src-layout" => &["args"],
                _ => &["run/tallyho"],
            };
            for op in ops {
                case(&fixtures, fixture, &format!("{op} {tail}"), &plain);
                case(&fixtures, fixture, &format!("{op} -- {tail}"), &plain);
                case(&fixtures, fixture, &format!("{op} {tail} -- x"), &middle);
            }
        }
        "make-rules" => {
            let root = fixtures.path(fixture);
            let recipe = detect(&root, &RecipeConfig::default());
            let resolved = recipe.resolve("greet WHO='the world'").expect("resolves");
            assert_eq!(resolved.command, "make greet WHO='the world'");
            let out = sh(&resolved.command, &root, std::time::Duration::from_secs(60));
            assert_eq!(out.stdout.text(), "ran greet the world\n");
        }
        _ => panic!("no arguments case for the fixture `{fixture}`"),
    }
}

/// Property: the words after a just recipe's name reach that recipe, or the run fails, but
/// never run another recipe (just reads words past a recipe's parameters as more recipes to
/// run, `[private]` ones too), through `recipe run` as through the resolved command.
#[test]
fn just_words_never_run_another_recipe() {
    require_tools(&["just"]);
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("justfile"),
        "nocd:\n    @echo ran nocd\n\n[private]\nsecret:\n    @echo SECRET RAN\n\n\
         two a b:\n    @echo ran two {{a}} {{b}}\n\nopt a='x':\n    @echo ran opt {{a}}\n\n\
         rest a +more:\n    @echo ran rest {{a}} {{more}}\n",
    )
    .expect("justfile");
    let root = dir.path();
    for op in [
        "nocd secret",
        "two 1 2 secret",
        "opt y secret",
        "nocd -- secret",
    ] {
        let out = speccoder(root, &["recipe", "run", op]);
        let text = format!("{}{}", stdout(&out), String::from_utf8_lossy(&out.stderr));
        assert!(!text.contains("SECRET RAN"), "`{op}` ran `secret`:\n{text}");
        assert_ne!(out.status.code(), Some(0), "`{op}`:\n{text}");
    }
    // Words the recipe takes still arrive; a variadic last parameter takes every word.
    for (op, want) in [
        ("nocd", "ran nocd\n"),
        ("two 1 2", "ran two 1 2\n"),
        ("opt", "ran opt x\n"),
        ("opt y", "ran opt y\n"),
        ("rest 1 secret --x", "ran rest 1 secret --x\n"),
    ] {
        let out = speccoder(root, &["recipe", "run", op]);
        assert_eq!(out.status.code(), Some(0), "`{op}`: {out:?}");
        assert!(stdout(&out).starts_with(want), "`{op}`: {}", stdout(&out));
    }
}

/// A project whose justfile has one recipe per output shape (just passes a recipe's exit
/// code through and prints nothing of its own on success).
fn shapes_project(config: &str) -> tempfile::TempDir {
    require_tools(&["just"]);
    let dir = tempfile::tempdir().expect("temp dir");
    std::fs::write(
        dir.path().join("justfile"),
        "hello:\n    @echo hello; echo world >&2\n\
         silent:\n    @true\n\
         fail:\n    @echo bad; exit 3\n\
         slow:\n    @sleep 30\n\
         big:\n    @seq 1 100000\n\
         loud:\n    @seq 1 1000; exit 5\n",
    )
    .expect("justfile");
    std::fs::write(dir.path().join("speccoder.toml"), config).expect("config");
    dir
}

#[test]
fn run_output_shapes_and_exit_codes() {
    let project = shapes_project("");
    let root = project.path();
    let out = speccoder(root, &["recipe", "run", "hello"]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "hello\nworld\n".into())
    );
    let out = speccoder(root, &["recipe", "run", "silent"]);
    assert_eq!(
        (out.status.code(), stdout(&out)),
        (Some(0), "(no output)\n".into())
    );
    let out = speccoder(root, &["recipe", "run", "fail"]);
    assert_eq!(out.status.code(), Some(3));
    let text = stdout(&out);
    assert!(text.starts_with("bad\n"), "{text}");
    assert!(
        text.ends_with("with exit code 3\n\nCommand exited with code 3\n"),
        "{text}"
    );
    let out = speccoder(root, &["recipe", "run", "--json", "fail"]);
    assert_eq!(out.status.code(), Some(3));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["runner"], "just");
    assert_eq!(json["task"], "fail");
    assert_eq!(json["command"], "just fail");
    assert_eq!(json["cwd"], serde_json::Value::Null);
    assert_eq!(json["exit_code"], 3);
    assert_eq!(json["signal"], serde_json::Value::Null);
    assert_eq!(json["timed_out"], false);
    assert!(
        json["output"]
            .as_str()
            .is_some_and(|o| o.starts_with("bad\n"))
    );
    assert_eq!(json["truncated"], false);
    assert_eq!(json["full_output"], serde_json::Value::Null);
    assert!(json["duration_ms"].is_u64());
}

#[test]
fn run_timeout_stops_the_task() {
    let project = shapes_project("");
    let out = speccoder(project.path(), &["recipe", "run", "--timeout", "1", "slow"]);
    assert_eq!(out.status.code(), Some(124));
    // just may or may not get to say it was terminated before the group is gone.
    let text = stdout(&out);
    assert!(
        text.ends_with("\n\nCommand timed out after 1 seconds\n"),
        "{text}"
    );
    let out = speccoder(
        project.path(),
        &["recipe", "run", "--timeout", "1", "--json", "slow"],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["timed_out"], true);
    assert!(
        json["duration_ms"]
            .as_u64()
            .is_some_and(|ms| (1000..3000).contains(&ms)),
        "{json}"
    );
    let out = speccoder(
        project.path(),
        &["recipe", "run", "--timeout", "0", "--json", "hello"],
    );
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(
        json["note"],
        "Timeout clamped to 1s (requested 0s; allowed range 1-3600s)."
    );
    assert_eq!(json["timeout_secs"], 1);
}

#[test]
fn long_output_is_cut_and_kept_whole() {
    let project = shapes_project("[recipe]\noutput_head_bytes = 100\noutput_tail_bytes = 50\n");
    let out = speccoder(project.path(), &["recipe", "run", "--json", "big"]);
    assert_eq!(out.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["truncated"], true);
    let full: String = (1..=100_000).map(|i| format!("{i}\n")).collect();
    let path = json["full_output"].as_str().expect("a file");
    assert_eq!(std::fs::read_to_string(path).expect("full output"), full);
    let output = json["output"].as_str().expect("output");
    let marker = format!(
        "[... {} bytes left out; the full output ({} bytes) is in {path} ...]",
        full.len() - 150,
        full.len()
    );
    assert!(
        output.starts_with(&full[..100].trim_end_matches('\n').to_owned()),
        "{output}"
    );
    assert!(output.contains(&marker), "{output}");
    assert!(output.ends_with(&full[full.len() - 50..]), "{output}");
    std::fs::remove_file(path).expect("remove");

    // A failing command keeps its full output too.
    let project = shapes_project("[recipe]\noutput_head_bytes = 10\noutput_tail_bytes = 10\n");
    let out = speccoder(project.path(), &["recipe", "run", "--json", "loud"]);
    assert_eq!(out.status.code(), Some(5));
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let path = json["full_output"].as_str().expect("kept on failure");
    let kept = std::fs::read_to_string(path).expect("full");
    let full: String = (1..=1000).map(|i| format!("{i}\n")).collect();
    assert!(kept.starts_with(&full), "{kept}");
    std::fs::remove_file(path).expect("remove");
}

#[test]
fn short_output_leaves_no_file() {
    let project = shapes_project("");
    // A state folder of its own, so only this run's files can be there.
    let state = tempfile::tempdir().expect("state");
    let out = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .arg("-C")
        .arg(project.path())
        .args(["recipe", "run", "--json", "hello"])
        .env("PATH", path_var())
        .env("XDG_STATE_HOME", state.path())
        .output()
        .expect("runs");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(json["full_output"], serde_json::Value::Null);
    let outputs = state.path().join("speccoder/outputs");
    assert!(outputs.is_dir(), "the run used the private folder");
    assert_eq!(entries(&outputs), ["running"]);
    assert_eq!(entries(&outputs.join("running")), Vec::<String>::new());
}

/// Property: every example op the prompt gives ("as in `…`") resolves on that project.
#[test]
fn prompt_examples_resolve() {
    require_tools(&["just", "task", "pnpm", "yarn", "bun"]);
    let fixtures = Fixtures::copy();
    let mut checked = 0;
    for name in fixture_names() {
        let recipe = detect(&fixtures.path(&name), &RecipeConfig::default());
        let Some(prompt) = recipe.prompt() else {
            continue;
        };
        for line in prompt.lines().filter(|l| l.contains("as in `")) {
            let example = line
                .split("as in `")
                .nth(1)
                .and_then(|rest| rest.split('`').next())
                .expect("a closed example");
            if example.starts_with('<') {
                continue;
            }
            let resolved = recipe.resolve(example);
            assert!(
                resolved.is_ok(),
                "{name}: example `{example}` does not resolve: {resolved:?}"
            );
            checked += 1;
        }
        // Each bullet's op reaches the very task the bullet shows: its command, run alone.
        // A name in several runners' blocks takes the runner id, as the prompt says.
        let bullets: Vec<(&str, &str, &str)> = prompt
            .lines()
            .filter(|l| l.starts_with("- `"))
            .filter_map(|l| bullet_op_and_command(l).map(|(op, command)| (l, op, command)))
            .collect();
        for &(line, op, command) in &bullets {
            let shared = bullets.iter().filter(|b| b.1 == op).count() > 1;
            if op.contains('*') || shared {
                continue;
            }
            // A pattern's bullet (`test-<stem>`, `make test-<stem>`) runs what a match
            // gives: `test-x` runs `make test-x`.
            let (op, command) = (filled(op), filled(command));
            let resolved = recipe.resolve(&op);
            assert_eq!(
                resolved.as_ref().map(|r| r.command.as_str()),
                Ok(command.as_str()),
                "{name}: the bullet `{line}` names an op that runs something else"
            );
            checked += 1;
        }
    }
    assert!(checked >= 20, "only {checked} examples checked");
}

/// `text` with each `<placeholder>` of a pattern replaced by `x`.
fn filled(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some((before, after)) = rest.split_once('<') {
        out.push_str(before);
        out.push('x');
        rest = after.split_once('>').map_or("", |(_, tail)| tail);
    }
    out.push_str(rest);
    out
}

/// The op a task bullet of the prompt gives (its first word) and the command it shows, for
/// a bullet of the form `` - `OP` — DOC (`COMMAND` in `CWD`); takes values … ``.
fn bullet_op_and_command(line: &str) -> Option<(&str, &str)> {
    let name = line.strip_prefix("- `")?.split('`').next()?;
    let op = name.split(' ').next()?;
    let command = line.rsplit_once(" (`")?.1.split('`').next()?;
    Some((op, command))
}

/// A task whose name starts with another detected runner's id (go-task's `just:build`
/// beside a justfile's `build`) is shown, suggested and listed as the op that reaches it,
/// `task:just:build`, never as `just:build`, which runs just's `build`.
#[test]
fn names_starting_with_a_runner_id_are_shown_as_ops_that_reach_them() {
    require_tools(&["just", "task"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("polyglot-prefixed");
    let recipe = detect(&root, &RecipeConfig::default());
    let prompt = recipe.prompt().expect("a prompt");
    assert!(
        prompt.contains("- `task:just:build` — "),
        "the bullet names the op:\n{prompt}"
    );
    assert!(!prompt.contains("`just:build`"), "{prompt}");
    let out = speccoder(&root, &["recipe", "run", "task:just:build"]);
    assert!(
        stdout(&out).ends_with("ran just:build\n"),
        "{}",
        stdout(&out)
    );
    assert!(!stdout(&out).contains("ran build"), "{}", stdout(&out));
    // Error texts: the list and the suggestion name the op, not the bare name.
    let err = recipe
        .resolve("nope")
        .expect_err("no such task")
        .to_string();
    assert!(err.contains("- task: lint, task:just:build"), "{err}");
    let err = recipe
        .resolve("task:just:buidl")
        .expect_err("a typo")
        .to_string();
    assert!(err.contains("did you mean `task:just:build`?"), "{err}");
    let err = recipe.resolve("ust:build").expect_err("a typo").to_string();
    assert!(err.contains("did you mean `"), "{err}");
    let listed = recipe
        .resolve("--list build")
        .expect_err("a listing")
        .to_string();
    assert!(listed.contains("- task: task:just:build"), "{listed}");
}

#[test]
fn kept_outputs_are_bounded() {
    let project = shapes_project("[recipe]\noutput_head_bytes = 10\noutput_tail_bytes = 10\n");
    let state = tempfile::tempdir().expect("state");
    let mut last = None;
    for _ in 0..speccoder_recipe::MAX_KEPT_OUTPUTS + 3 {
        let out = support::speccoder_with(
            project.path(),
            &["recipe", "run", "--json", "big"],
            &[("XDG_STATE_HOME", state.path().as_os_str())],
        );
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        last = json["full_output"].as_str().map(std::path::PathBuf::from);
    }
    let kept = entries(&state.path().join("speccoder/outputs"))
        .iter()
        .filter(|name| name.starts_with("run-"))
        .count();
    assert_eq!(kept, speccoder_recipe::MAX_KEPT_OUTPUTS);
    assert!(last.expect("a full output").exists(), "the newest is kept");
}

/// The names in `dir`, sorted.
fn entries(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Kept outputs are private to the user, and a run's file survives any number of other
/// runs pruning while it is in progress (measured before: 55 concurrent runs deleted it).
#[test]
fn kept_outputs_are_private_and_never_pruned_while_running() {
    use std::os::unix::fs::PermissionsExt;
    let project = shapes_project("[recipe]\noutput_head_bytes = 10\noutput_tail_bytes = 10\n");
    std::fs::write(
        project.path().join("justfile"),
        "big:\n    @seq 1 100000\n\
         waits:\n    @seq 1 100000; while [ ! -e go ]; do sleep 0.05; done; echo end\n",
    )
    .expect("justfile");
    let state = tempfile::tempdir().expect("state");
    let outputs = state.path().join("speccoder/outputs");
    let waiting = Command::new(env!("CARGO_BIN_EXE_speccoder"))
        .arg("-C")
        .arg(project.path())
        .args(["recipe", "run", "--json", "--timeout", "60", "waits"])
        .env("PATH", path_var())
        .env("XDG_STATE_HOME", state.path())
        .env("SPECCODER_CACHE_DIR", support::test_cache_dir())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    // Its output file exists once it has started (wherever it is kept while running).
    let started = || {
        [outputs.clone(), outputs.join("running")]
            .iter()
            .filter(|dir| dir.is_dir())
            .any(|dir| entries(dir).iter().any(|name| name.starts_with("run-")))
    };
    while !started() {
        assert!(
            std::time::Instant::now() < deadline,
            "the run never started"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    for _ in 0..speccoder_recipe::MAX_KEPT_OUTPUTS + 5 {
        support::speccoder_with(
            project.path(),
            &["recipe", "run", "--json", "big"],
            &[("XDG_STATE_HOME", state.path().as_os_str())],
        );
    }
    std::fs::write(project.path().join("go"), "").expect("go");
    let out = waiting.wait_with_output().expect("finishes");
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let path = std::path::PathBuf::from(json["full_output"].as_str().expect("kept"));
    let full = std::fs::read_to_string(&path).expect("the running task's output was kept");
    assert!(
        full.ends_with("99999\n100000\nend\n"),
        "{}",
        &full[full.len() - 30..]
    );
    let mode =
        |p: &std::path::Path| std::fs::metadata(p).expect("meta").permissions().mode() & 0o777;
    assert_eq!(
        (
            mode(&outputs),
            mode(&path),
            mode(&state.path().join("speccoder"))
        ),
        (0o700, 0o600, 0o700)
    );
}

/// An outputs folder that is a symlink, or another user's, is refused before anything runs,
/// and nothing where it points is pruned.
#[test]
fn an_outputs_folder_not_safely_ours_is_refused() {
    let project = shapes_project("[recipe]\noutput_head_bytes = 10\noutput_tail_bytes = 10\n");
    let state = tempfile::tempdir().expect("state");
    let victim = state.path().join("documents");
    std::fs::create_dir(&victim).expect("victim");
    for i in 0..60 {
        std::fs::write(victim.join(format!("doc-{i}.txt")), "mine").expect("doc");
    }
    std::fs::create_dir(state.path().join("speccoder")).expect("mkdir");
    std::os::unix::fs::symlink(&victim, state.path().join("speccoder/outputs")).expect("link");
    let run = || {
        support::speccoder_with(
            project.path(),
            &["recipe", "run", "big"],
            &[("XDG_STATE_HOME", state.path().as_os_str())],
        )
    };
    let out = run();
    assert_eq!(out.status.code(), Some(5));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: cannot keep the full output: {}/speccoder/outputs: is a symlink; a private \
             folder must be a real folder\n",
            state.path().display()
        )
    );
    assert_eq!(entries(&victim).len(), 60);
    // Another user's folder (only root can make one here).
    if rustix::process::geteuid().is_root() {
        std::fs::remove_file(state.path().join("speccoder/outputs")).expect("unlink");
        let theirs = state.path().join("speccoder/outputs");
        std::fs::create_dir(&theirs).expect("mkdir");
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).expect("chown");
        let out = run();
        assert_eq!(out.status.code(), Some(5));
        assert!(
            String::from_utf8_lossy(&out.stderr)
                .contains("is owned by user 65534, not by this user (0)"),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Pruning removes only the runtime's own kept outputs: other files in the outputs folder,
/// however old, stay (measured before: 55 documents dated 2020, one long run, 8 deleted).
#[test]
fn pruning_leaves_files_that_are_not_kept_outputs() {
    let project = shapes_project("[recipe]\noutput_head_bytes = 10\noutput_tail_bytes = 10\n");
    let state = tempfile::tempdir().expect("state");
    let outputs = state.path().join("speccoder/outputs");
    let run = || {
        let out = support::speccoder_with(
            project.path(),
            &["recipe", "run", "--json", "big"],
            &[("XDG_STATE_HOME", state.path().as_os_str())],
        );
        assert_eq!(out.status.code(), Some(0), "{out:?}");
    };
    run();
    let old = std::time::SystemTime::UNIX_EPOCH + std::time::Duration::from_secs(1_580_000_000);
    // Documents, and names close to a kept output's that the runtime never writes.
    let mut planted: Vec<String> = (0..55).map(|i| format!("doc{i}.txt")).collect();
    planted.extend(["run-notes.txt", "run-.log", "run-x.log.bak"].map(str::to_owned));
    for name in &planted {
        let path = outputs.join(name);
        std::fs::write(&path, "mine").expect("doc");
        std::fs::File::options()
            .write(true)
            .open(&path)
            .and_then(|f| f.set_modified(old))
            .expect("dated 2020");
    }
    for _ in 0..speccoder_recipe::MAX_KEPT_OUTPUTS + 2 {
        run();
    }
    let names = entries(&outputs);
    for name in &planted {
        assert!(names.contains(name), "{name} was pruned: {names:?}");
    }
    let kept = names
        .iter()
        .filter(|n| n.starts_with("run-") && !planted.contains(n))
        .count();
    assert_eq!(kept, speccoder_recipe::MAX_KEPT_OUTPUTS);
}

/// Every folder the runtime makes or uses on the way to its outputs is checked, not only
/// `outputs`: a `speccoder` folder another user owns and may write (so could swap `outputs`
/// between check and use), or a symlink, is refused before anything runs (exit 2).
#[test]
fn a_parent_of_the_outputs_folder_not_safely_ours_is_refused() {
    let project = shapes_project("[recipe]\noutput_head_bytes = 10\noutput_tail_bytes = 10\n");
    let state = tempfile::tempdir().expect("state");
    let speccoder = state.path().join("speccoder");
    let run = || {
        support::speccoder_with(
            project.path(),
            &["recipe", "run", "big"],
            &[("XDG_STATE_HOME", state.path().as_os_str())],
        )
    };
    let elsewhere = state.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).expect("mkdir");
    std::os::unix::fs::symlink(&elsewhere, &speccoder).expect("link");
    let out = run();
    assert_eq!(out.status.code(), Some(5), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: cannot keep the full output: {}: is a symlink; a private folder must be a \
             real folder\n",
            speccoder.display()
        )
    );
    assert!(entries(&elsewhere).is_empty(), "{:?}", entries(&elsewhere));
    // Another user's folder, open to all (only root can make one here).
    if rustix::process::geteuid().is_root() {
        use std::os::unix::fs::PermissionsExt;
        std::fs::remove_file(&speccoder).expect("unlink");
        std::fs::create_dir(&speccoder).expect("mkdir");
        std::fs::set_permissions(&speccoder, std::fs::Permissions::from_mode(0o777))
            .expect("chmod");
        std::os::unix::fs::chown(&speccoder, Some(65534), Some(65534)).expect("chown");
        let out = run();
        assert_eq!(out.status.code(), Some(5), "{out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stderr),
            format!(
                "error: cannot keep the full output: {}: is owned by user 65534, not by this \
                 user (0)\n",
                speccoder.display()
            )
        );
        assert!(entries(&speccoder).is_empty(), "{:?}", entries(&speccoder));
    }
}

/// Property: the words of a Python op follow the launcher, which hands them on unread
/// (`poetry run --`, `hatch run --`), and a leading `--` is the op's own separator.
#[test]
fn python_words_follow_the_launcher() {
    require_tools(&["pytest", "poe", "hatch", "uv", "poetry"]);
    let fixtures = Fixtures::copy();
    #[track_caller]
    fn case(fixtures: &Fixtures, fixture: &str, op: &str, want: &str) {
        let recipe = detect(&fixtures.path(fixture), &RecipeConfig::default());
        let resolved = recipe.resolve(op).expect("resolves");
        assert_eq!(resolved.command, want, "{fixture}: {op}");
    }
    case(&fixtures, "python-uv", "test -x", "uv run pytest -x");
    case(&fixtures, "python-uv", "test -- -x", "uv run pytest -x");
    case(
        &fixtures,
        "python-poetry",
        "test -x",
        "poetry run -- pytest -x",
    );
    case(
        &fixtures,
        "python-poetry",
        "lint -- --fix",
        "poe lint --fix",
    );
    case(
        &fixtures,
        "python-src-layout",
        "test -x",
        "hatch run -- pytest -x",
    );
    case(
        &fixtures,
        "python-src-layout",
        "lint/check",
        "hatch run -- lint:check",
    );
    case(
        &fixtures,
        "python-src-layout",
        "python:lint/style",
        "hatch run -- lint:style",
    );
    case(
        &fixtures,
        "python-unittest",
        "test -v",
        "python3 -m unittest discover -s tests -v",
    );
    // The words reach pytest: `-k` selects one of the two tests.
    let root = fixtures.path("python-pytest-requirements");
    let recipe = detect(&root, &RecipeConfig::default());
    let resolved = recipe.resolve("test -k no_match -v").expect("resolves");
    assert_eq!(resolved.command, "env PYTHONPATH=. pytest -k no_match -v");
    let out = sh(&resolved.command, &root, std::time::Duration::from_secs(60));
    let text = out.stdout.text();
    assert!(out.success(), "{text}");
    assert!(text.contains("1 passed, 1 deselected"), "{text}");
}
