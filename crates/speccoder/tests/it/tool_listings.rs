//! The runners read as data (mise, deno, composer, pixi) against the real tools' own
//! listings, and why mise's listing is not run.

use crate::support;

use std::path::Path;
use std::time::Duration;

use speccoder_config::RecipeConfig;
use support::{Fixtures, detect, require_tools, sh};

/// `(name, doc)` of each task `id` lists in `root`.
fn listed(root: &Path, id: &str) -> Vec<(String, Option<String>)> {
    let recipe = detect(root, &RecipeConfig::default());
    let runner = recipe
        .runners()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("`{id}` detected in {}", root.display()));
    runner
        .tasks
        .iter()
        .map(|t| (t.name.clone(), t.doc.clone()))
        .collect()
}

/// Runs `command` in `root` and returns its stdout, failing the test when it fails.
fn run(command: &str, root: &Path) -> String {
    let out = sh(command, root, Duration::from_secs(60));
    let text = out.stdout.text();
    assert!(out.success(), "`{command}` failed:\n{text}");
    text
}

/// Property: the mise runner lists what `mise tasks` lists (names sorted, descriptions,
/// aliases), from the configs in precedence order, file tasks (`db:migrate`, `db` from
/// `_default`, `gen` from `gen.sh`) and every default task folder, leaving out the hidden
/// task `mise tasks` leaves out.
#[test]
fn mise_lists_what_mise_tasks_lists() {
    require_tools(&["mise"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("mise-go");
    let home = tempfile::tempdir().expect("home");
    let json = run(
        &format!(
            "HOME={home} XDG_STATE_HOME={home}/state XDG_DATA_HOME={home}/data \
             XDG_CACHE_HOME={home}/cache XDG_CONFIG_HOME={home}/config \
             MISE_TRUSTED_CONFIG_PATHS=\"$PWD\" mise tasks --json </dev/null",
            home = home.path().display()
        ),
        &root,
    );
    let tasks: serde_json::Value = serde_json::from_str(&json).expect("mise tasks --json");
    let theirs: Vec<(String, Option<String>)> = tasks
        .as_array()
        .expect("a list")
        .iter()
        .map(|t| {
            let name = t["name"].as_str().expect("name").to_owned();
            let description = t["description"].as_str().filter(|d| !d.is_empty());
            let aliases: Vec<&str> = t["aliases"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|a| a.as_str())
                .collect();
            let doc = match (description, aliases.is_empty()) {
                (d, true) => d.map(str::to_owned),
                (Some(d), false) => Some(format!("{d} (aliases: {})", aliases.join(", "))),
                (None, false) => Some(format!("(aliases: {})", aliases.join(", "))),
            };
            (name, doc)
        })
        .collect();
    let ours = listed(&root, "mise");
    assert_eq!(ours, theirs);
    let names: Vec<&str> = ours.iter().map(|(n, _)| n.as_str()).collect();
    for name in ["db", "db:migrate", "gen", "seed", "dev", "test"] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }
    assert!(
        !names.contains(&"bench-internal"),
        "the hidden task is left out"
    );
}

/// Property: `mise tasks` runs a trusted config's `{{exec(…)}}` templates (here one that
/// creates a file; a mise user trusts their projects, and an untrusted config with a
/// template is refused), which is why detection reads mise's files and never runs it: `recipe list` lists
/// the task and creates nothing.
#[test]
fn mise_tasks_runs_project_code_and_detection_does_not() {
    require_tools(&["mise"]);
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path();
    std::fs::write(
        root.join("mise.toml"),
        "[env]\nSTAMP = \"{{exec(command='touch ran-by-listing')}}\"\n\n[tasks.test]\nrun = \"echo ran test\"\n",
    )
    .expect("mise.toml");
    let out = support::speccoder(root, &["recipe", "list"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("mise run test"), "{text}");
    assert!(
        !root.join("ran-by-listing").exists(),
        "detection ran the template"
    );
    let home = tempfile::tempdir().expect("home");
    run(
        &format!(
            "HOME={home} XDG_STATE_HOME={home}/state XDG_DATA_HOME={home}/data \
             XDG_CACHE_HOME={home}/cache MISE_TRUSTED_CONFIG_PATHS=\"$PWD\" \
             mise tasks </dev/null",
            home = home.path().display()
        ),
        root,
    );
    assert!(
        root.join("ran-by-listing").exists(),
        "mise tasks no longer runs templates: its listing could be used"
    );
}

/// The task names of `deno task`'s text listing that are the folder's own (not a root
/// task shown in a member as `(workspace)`), with their `// description` lines.
fn deno_task_names(text: &str) -> Vec<(String, Option<String>)> {
    let mut out: Vec<(String, Option<String>)> = Vec::new();
    let mut own = false;
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("- ") {
            own = !name.ends_with(" (workspace)");
            if own {
                out.push((name.to_owned(), None));
            }
        } else if let Some(doc) = line.trim().strip_prefix("// ")
            && own
            && let Some(last) = out.last_mut()
        {
            last.1.get_or_insert_with(|| doc.to_owned());
        }
    }
    out
}

/// Property: the deno runner lists what `deno task` lists in the root and in each workspace
/// member (run there), with the descriptions, members as `NAME/task` run in their folder.
#[test]
fn deno_lists_what_deno_task_lists_in_each_folder() {
    require_tools(&["deno"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("deno-workspace");
    let recipe = detect(&root, &RecipeConfig::default());
    let runner = recipe.runners().find(|r| r.id == "deno").expect("deno");
    let mut folders: Vec<Option<String>> = vec![None];
    for task in &runner.tasks {
        if !folders.contains(&task.cwd) {
            folders.push(task.cwd.clone());
        }
    }
    assert_eq!(
        folders.len(),
        4,
        "the root, two packages and tools: {folders:?}"
    );
    for folder in folders {
        let cwd = folder.as_ref().map_or(root.clone(), |f| root.join(f));
        let theirs = deno_task_names(&run("deno task 2>&1", &cwd));
        let ours: Vec<(String, Option<String>)> = runner
            .tasks
            .iter()
            .filter(|t| t.cwd == folder)
            .map(|t| {
                let name = t.name.rsplit('/').next().unwrap_or(&t.name).to_owned();
                // A member's task without a description shows its folder, as a package's does.
                let doc = t.doc.clone().filter(|d| Some(d) != folder.as_ref());
                (name, doc)
            })
            .collect();
        assert_eq!(ours, theirs, "in {folder:?}");
    }
}

/// Property: the composer runner lists what `composer run --list` lists, with the
/// descriptions of `scripts-descriptions`.
#[test]
fn composer_lists_what_composer_run_list_lists() {
    require_tools(&["composer"]);
    let fixtures = Fixtures::copy();
    let root = fixtures.path("composer-app");
    let text = run(
        "COMPOSER_ALLOW_SUPERUSER=1 composer run --list --no-plugins --no-interaction 2>/dev/null",
        &root,
    );
    // One line a script (a `scripts:` heading first on a terminal).
    let theirs: Vec<(String, Option<String>)> = text
        .lines()
        .filter(|l| l.starts_with("  "))
        .filter_map(|l| {
            let l = l.trim();
            let (name, rest) = l.split_once(' ').unwrap_or((l, ""));
            let rest = rest.trim();
            (!name.is_empty()).then(|| {
                let generic = rest.is_empty() || rest.starts_with("Runs the ");
                (name.to_owned(), (!generic).then(|| rest.to_owned()))
            })
        })
        .collect();
    let ours: Vec<(String, Option<String>)> = listed(&root, "composer")
        .into_iter()
        .map(|(name, doc)| {
            let doc = doc.map(|d| d.split(" (aliases:").next().unwrap_or(&d).to_owned());
            (name, doc)
        })
        .collect();
    assert_eq!(ours, theirs);
}

/// Property: a pixi workspace's tasks resolve as its docs name them: default tasks alone,
/// a task of one environment alone (`docs`), and any task in any environment as
/// `ENV:TASK` (`pixi run -e ENV TASK`). pixi is not on the registries here, so detection
/// gets a stand-in `pixi` on PATH that is never run (detection reads pixi.toml as text).
#[test]
fn pixi_tasks_resolve_with_their_environments() {
    use std::os::unix::fs::PermissionsExt;
    let fixtures = Fixtures::copy();
    let root = fixtures.path("pixi-lab");
    let bin = tempfile::tempdir().expect("bin");
    let stand_in = bin.path().join("pixi");
    std::fs::write(
        &stand_in,
        "#!/bin/sh\necho 'stand-in pixi: never run' >&2\nexit 97\n",
    )
    .expect("stand-in");
    std::fs::set_permissions(&stand_in, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    let mut path = std::ffi::OsString::from(bin.path());
    path.push(":");
    path.push(support::path_var());
    let resolve = |op: &str| {
        let out = support::speccoder_with(&root, &["recipe", "resolve", op], &[("PATH", &path)]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned()
    };
    assert_eq!(resolve("test"), "pixi run test");
    assert_eq!(resolve("check"), "pixi run check");
    assert_eq!(resolve("docs"), "pixi run -e docs docs");
    assert_eq!(resolve("py310:test"), "pixi run -e py310 test");
    assert_eq!(resolve("gpu-py312:bench"), "pixi run -e gpu-py312 bench");
    // `bench` is in two environments: only `ENV:bench` names one.
    assert_eq!(resolve("bench"), "");
    // The platform's own tasks are left out, and said so.
    let out = support::speccoder_with(&root, &["recipe", "list", "--explain"], &[("PATH", &path)]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("[target.PLATFORM.tasks] are left out"),
        "{text}"
    );
}

/// Property: the commands each fixture's own docs name resolve to those commands: in a Go
/// service whose CLAUDE.md says to use mise, `test` is `mise run test` (go's own `test`
/// yields to the project's, `go:test` still reaches it); a deno workspace's README and a
/// composer project's CONTRIBUTING likewise; and a pixi workspace kept in pyproject.toml's
/// `[tool.pixi]`.
#[test]
fn the_commands_the_docs_name_resolve_to_them() {
    use std::os::unix::fs::PermissionsExt;
    require_tools(&["mise", "deno", "composer", "go"]);
    let fixtures = Fixtures::copy();
    let resolve = |fixture: &str, op: &str| {
        let out = support::speccoder(&fixtures.path(fixture), &["recipe", "resolve", op]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned()
    };
    for (fixture, docs) in [
        ("mise-go", "CLAUDE.md"),
        ("deno-workspace", "README.md"),
        ("composer-app", "CONTRIBUTING.md"),
    ] {
        let text = std::fs::read_to_string(fixtures.path(fixture).join(docs)).expect("docs");
        let mut named = 0;
        for command in text.split('`').skip(1).step_by(2) {
            let op = ["mise run ", "deno task ", "composer "]
                .iter()
                .find_map(|prefix| command.strip_prefix(prefix));
            let Some(op) = op else { continue };
            named += 1;
            let want = match command.strip_prefix("composer ") {
                Some(script) => format!("composer run {script}"),
                None => command.to_owned(),
            };
            assert_eq!(resolve(fixture, op), want, "{fixture}: `{command}`");
        }
        assert!(named >= 2, "{fixture}: {docs} names {named} commands");
    }
    assert_eq!(resolve("mise-go", "go:test"), "go test ./...");
    // pixi's tasks in pyproject.toml, with a stand-in `pixi` that detection never runs.
    let dir = tempfile::tempdir().expect("temp dir");
    let root = dir.path().join("project");
    std::fs::create_dir_all(&root).expect("root");
    std::fs::write(
        root.join("pyproject.toml"),
        "[project]\nname = \"lab\"\nversion = \"0.1.0\"\n\n[tool.pixi.workspace]\nchannels = [\"conda-forge\"]\nplatforms = [\"linux-64\"]\n\n[tool.pixi.tasks]\nlab-test = \"pytest\"\n\n[tool.pixi.feature.lint.tasks]\nstyle = \"ruff check\"\n\n[tool.pixi.environments]\nlint = [\"lint\"]\n",
    )
    .expect("pyproject");
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).expect("bin");
    std::fs::write(bin.join("pixi"), "#!/bin/sh\nexit 97\n").expect("stand-in");
    std::fs::set_permissions(bin.join("pixi"), std::fs::Permissions::from_mode(0o755))
        .expect("chmod");
    let mut path = std::ffi::OsString::from(&bin);
    path.push(":");
    path.push(support::path_var());
    let resolve = |op: &str| {
        let out = support::speccoder_with(&root, &["recipe", "resolve", op], &[("PATH", &path)]);
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .next()
            .unwrap_or("")
            .to_owned()
    };
    assert_eq!(resolve("lab-test"), "pixi run lab-test");
    assert_eq!(resolve("style"), "pixi run -e lint style");
}

/// Property: an agent's allowance for a task admits only the words each tool hands on
/// unread, as measured: after `--` for mise and composer (before it they read `--help`,
/// `:::` or their own options), any words for deno, which hands every word on.
#[test]
fn allowances_follow_how_each_tool_hands_on_words() {
    require_tools(&["mise", "deno", "composer"]);
    let fixtures = Fixtures::copy();
    for (fixture, want) in [
        (
            "mise-go",
            &["Bash(mise run test)", "Bash(mise run test -- *)"][..],
        ),
        ("deno-workspace", &["Bash(deno task test *)"][..]),
        (
            "composer-app",
            &["Bash(composer run test)", "Bash(composer run test -- *)"][..],
        ),
    ] {
        let root = fixtures.path(fixture);
        std::fs::write(
            root.join("speccoder.toml"),
            "[recipe]\nallow_tasks = true\n",
        )
        .expect("config");
        let out = support::speccoder(&root, &["allow", "--json"]);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
        let rules: Vec<&str> = json["claude_rules"]
            .as_array()
            .expect("rules")
            .iter()
            .filter_map(|r| r.as_str())
            .filter(|r| r.contains(" test"))
            .filter(|r| !r.starts_with("Bash(go "))
            .collect();
        assert_eq!(rules, want, "{fixture}");
    }
}
