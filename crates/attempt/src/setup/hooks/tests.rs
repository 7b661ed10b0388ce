//! The rules of `hooks.rs` on trees shaped as the measured installs left them.

use super::*;

/// Where the venv's `site-packages` is in every tree here.
const SITE: &str = ".venv/lib/python3.11/site-packages";

/// A line of setuptools's own `.pth`, code in every venv of Python 3.11.
const DISTUTILS: &str = "import os; var = 'SETUPTOOLS_USE_DISTUTILS'; enabled = os.environ.get(var, 'local') == 'local'; enabled and __import__('_distutils_hack').add_shim(); \n";

/// setuptools's finder (the head of the template, as setuptools 75 writes it) with
/// `mapping` filled in.
fn finder(mapping: &str) -> String {
    format!(
        "from __future__ import annotations\nimport sys\nfrom importlib.machinery import ModuleSpec, PathFinder\n\nMAPPING: dict[str, str] = {mapping}\nNAMESPACES: dict[str, list[str]] = {{}}\nPATH_PLACEHOLDER = '__editable__.calc-0.1.0.finder' + \".__path_hook__\"\n\n\nclass _EditableFinder:  # MetaPathFinder\n    pass\n"
    )
}

/// The products of a setup whose tree holds `files` (path, text; a text starting with
/// `->` is a link to the rest), under the entries `.venv/`, `node_modules/`,
/// `src/calc.egg-info/`, `src/zz_hook.py` and `build/`.
fn products(dir: &Path, files: &[(String, String)]) -> SetupProducts {
    let tree = dir.join("tree");
    for (path, text) in files {
        let full = tree.join(path.as_str());
        std::fs::create_dir_all(full.parent().expect("a parent")).expect("a folder");
        match text.strip_prefix("->") {
            Some(target) => std::os::unix::fs::symlink(target, &full).expect("a link"),
            None => std::fs::write(&full, text).expect("a file"),
        }
    }
    SetupProducts {
        at: dir.to_path_buf(),
        tree,
        caches: dir.join("caches"),
        entries: vec![
            ".venv/".into(),
            "node_modules/".into(),
            "src/calc.egg-info/".into(),
            "src/zz_hook.py".into(),
            "build/".into(),
        ],
    }
}

/// The files every venv of the base holds: pip with its record, setuptools's `.pth`, a
/// `setup.py develop` of the project, and the interpreter's link.
fn venv() -> Vec<(String, String)> {
    [
        (".venv/pyvenv.cfg", "home = /usr/bin\n"),
        (".venv/bin/python", "->/usr/bin/python3"),
        (&format!("{SITE}/pip/__init__.py"), "__version__ = '23.2.1'\n"),
        (
            &format!("{SITE}/pip-23.2.1.dist-info/RECORD"),
            "pip/__init__.py,sha256=x,24\n../../../bin/pip,sha256=y,200\npip-23.2.1.dist-info/RECORD,,\n",
        ),
        (&format!("{SITE}/distutils-precedence.pth"), DISTUTILS),
        (&format!("{SITE}/easy-install.pth"), "/dev/shm/speccoder-tree-at/src\n"),
        (&format!("{SITE}/calc.egg-link"), "/dev/shm/speccoder-tree-at/src\n../"),
        ("src/calc.egg-info/PKG-INFO", "Name: calc\n"),
        (
            "node_modules/is-number/package.json",
            "{\"name\": \"is-number\", \"version\": \"7.0.0\"}",
        ),
        ("node_modules/is-number/index.js", "module.exports = 1;\n"),
        (
            "node_modules/@scope/lib/package.json",
            "{\"name\": \"@scope/lib\", \"version\": \"1.0.0\"}",
        ),
        ("node_modules/@scope/lib/lib/index.js", "module.exports = 2;\n"),
        ("node_modules/.bin/lib", "->../@scope/lib/lib/index.js"),
    ]
    .iter()
    .map(|(p, t)| ((*p).to_owned(), (*t).to_owned()))
    .collect()
}

/// The first finding for a candidate whose setup made the base's venv changed by `edits`
/// (a text of `None` removes the file).
fn judged(base_extra: &[(&str, &str)], edits: &[(&str, Option<&str>)]) -> Option<Finding> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    let mut base_files = venv();
    base_files.extend(
        base_extra
            .iter()
            .map(|(p, t)| ((*p).to_owned(), (*t).to_owned())),
    );
    let mut own_files = base_files.clone();
    for (path, text) in edits {
        own_files.retain(|(p, _)| p != path);
        if let Some(text) = text {
            own_files.push(((*path).to_owned(), (*text).to_owned()));
        }
    }
    std::fs::create_dir(dir.path().join("base")).expect("base");
    std::fs::create_dir(dir.path().join("own")).expect("own");
    let base = products(&dir.path().join("base"), &base_files);
    let own = products(&dir.path().join("own"), &own_files);
    verify(Some(&base), &own).err()
}

/// The red team's hook (docs/design/red-team/README.md, venv-product-hook): a `.pth` that
/// imports a module the setup copied beside it.
#[test]
fn a_pth_that_imports_a_module_the_setup_wrote_is_a_finding() {
    let pth = format!("{SITE}/zz_site_hook.pth");
    let module = format!("{SITE}/zz_site_hook.py");
    let finding = judged(
        &[],
        &[
            (&pth, Some("import zz_site_hook\n")),
            (&module, Some("import unittest\n")),
        ],
    )
    .expect("a finding");
    assert_eq!(finding.kind, FindingKind::Tampering);
    assert_eq!(finding.path, pth);
    assert!(finding.detail.contains("line 1"), "{}", finding.detail);
    // The same line with a tab, and code added to a `.pth` the base made.
    let easy = format!("{SITE}/easy-install.pth");
    let tab = "/dev/shm/speccoder-tree-at/src\nimport\tzz_site_hook\n";
    let finding = judged(&[], &[(&easy, Some(tab))]).expect("a finding");
    assert!(finding.detail.contains("line 2"), "{}", finding.detail);
    // The module alone, for the candidate's code to import, is a finding too.
    let finding = judged(&[], &[(&module, Some("import unittest\n"))]).expect("a finding");
    assert_eq!(finding.path, module);
    assert!(finding.detail.contains("no installed distribution records"));
}

#[test]
fn sitecustomize_anywhere_in_the_products_is_a_finding() {
    for path in [
        format!("{SITE}/sitecustomize.py"),
        format!("{SITE}/usercustomize.pyc"),
        ".venv/lib/python3.11/sitecustomize.py".to_owned(),
        "src/calc.egg-info/sitecustomize.py".to_owned(),
    ] {
        let finding = judged(&[], &[(&path, Some("import unittest\n"))]).expect(&path);
        assert_eq!(finding.path, path);
        assert!(finding.detail.contains("every start"), "{}", finding.detail);
    }
}

#[test]
fn what_honest_installs_write_is_no_finding() {
    let easy = format!("{SITE}/easy-install.pth");
    // The base's products again, a path line more (a second source folder), a new
    // distribution from the index with its record and a `.pth` of code of its own.
    assert_eq!(judged(&[], &[]), None);
    let paths = "/dev/shm/speccoder-tree-at/src\n/dev/shm/speccoder-tree-at/lib\n";
    assert_eq!(judged(&[], &[(&easy, Some(paths))]), None);
    let record = format!("{SITE}/six-1.16.0.dist-info/RECORD");
    let listed = "six.py,sha256=a,1\nsix-nspkg.pth,sha256=b,2\n../../../bin/six-tool,sha256=c,3\n";
    assert_eq!(
        judged(
            &[],
            &[
                (&record, Some(listed)),
                (&format!("{SITE}/six.py"), Some("x = 1\n")),
                (
                    &format!("{SITE}/six-nspkg.pth"),
                    Some("import sys, types\n")
                ),
                (".venv/bin/six-tool", Some("#!/usr/bin/python3\n")),
                (
                    &format!("{SITE}/__pycache__/six.cpython-311.pyc"),
                    Some("pyc")
                ),
            ]
        ),
        None
    );
    // An upgrade: a new pip records its changed files and scripts.
    let upgraded = format!("{SITE}/pip-24.0.dist-info/RECORD");
    assert_eq!(
        judged(
            &[(".venv/bin/pip", "#!/usr/bin/python3\n")],
            &[
                (&format!("{SITE}/pip-23.2.1.dist-info/RECORD"), None),
                (&upgraded, Some("pip/__init__.py,,\n../../../bin/pip,,\n")),
                (
                    &format!("{SITE}/pip/__init__.py"),
                    Some("__version__ = '24.0'\n")
                ),
                (".venv/bin/pip", Some("#!/usr/bin/python3 -E\n")),
            ]
        ),
        None
    );
    // An entry point's new script in the venv's `bin/`.
    assert_eq!(judged(&[], &[(".venv/bin/calc-cli", Some("#!/x\n"))]), None);
}

#[test]
fn a_changed_file_of_a_distribution_of_the_same_version_is_a_finding() {
    let pip = format!("{SITE}/pip/__init__.py");
    let finding = judged(&[], &[(&pip, Some("import unittest\n"))]).expect("a finding");
    assert_eq!(finding.path, pip);
    assert!(
        finding.detail.contains("changed a file of `pip`"),
        "{}",
        finding.detail
    );
    // Outside site-packages: the interpreter replaced by a script, the venv's settings.
    let finding = judged(&[], &[(".venv/bin/python", Some("#!/bin/sh\n"))]).expect("python");
    assert_eq!(finding.path, ".venv/bin/python");
    let cfg = "home = /usr/bin\ninclude-system-site-packages = true\n";
    let finding = judged(&[], &[(".venv/pyvenv.cfg", Some(cfg))]).expect("pyvenv.cfg");
    assert_eq!(finding.path, ".venv/pyvenv.cfg");
}

#[test]
fn an_editable_finder_is_honest_only_as_the_template_with_literals() {
    let pth = format!("{SITE}/__editable__.calc-0.1.0.pth");
    let module = format!("{SITE}/__editable___calc_0_1_0_finder.py");
    let line = "import __editable___calc_0_1_0_finder; __editable___calc_0_1_0_finder.install()";
    let base_map = finder("{'calc': '/dev/shm/speccoder-tree-at/calc'}");
    let base = [(pth.as_str(), line), (module.as_str(), base_map.as_str())];
    // The candidate added a module: the mapping grew.
    let grown = finder(
        "{'calc': '/dev/shm/speccoder-tree-at/calc', 'helper': '/dev/shm/speccoder-tree-at/helper'}",
    );
    assert_eq!(judged(&base, &[(&module, Some(&grown))]), None);
    // A mapping that calls something, and a line added to the template.
    let called = finder("{'calc': __import__('os').getcwd()}");
    let finding = judged(&base, &[(&module, Some(&called))]).expect("a call");
    assert_eq!(finding.path, module);
    let added = format!("{base_map}import unittest\n");
    assert!(judged(&base, &[(&module, Some(&added))]).is_some());
    // Another version's finder, like the base's: honest; with no finder in the base to
    // compare with, or with its module missing, the `.pth` is code no install is known to
    // make.
    let pth2 = format!("{SITE}/__editable__.calc-0.2.0.pth");
    let module2 = format!("{SITE}/__editable___calc_0_2_0_finder.py");
    let line2 = "import __editable___calc_0_2_0_finder; __editable___calc_0_2_0_finder.install()\n";
    assert_eq!(
        judged(&base, &[(&pth2, Some(line2)), (&module2, Some(&grown))]),
        None
    );
    assert!(judged(&[], &[(&pth, Some(line)), (&module, Some(&grown))]).is_some());
    let finding = judged(&base, &[(&pth2, Some(line2))]).expect("no module");
    assert_eq!(finding.path, pth2);
}

#[test]
fn hatchlings_editables_module_holds_only_its_own_lines() {
    let pth = format!("{SITE}/_editable_impl_calc.pth");
    let module = format!("{SITE}/_editable_impl_calc.py");
    let honest = "from editables.redirector import RedirectingFinder as F\nF.install()\nF.map_module('calc', '/dev/shm/speccoder-tree-at/src/calc/__init__.py')";
    let edits = [
        (pth.as_str(), Some("import _editable_impl_calc")),
        (module.as_str(), Some(honest)),
    ];
    // Recorded by the project's own dist-info, as pip writes it.
    let record = format!("{SITE}/calc-0.1.0.dist-info/RECORD");
    let listed = "_editable_impl_calc.pth,,\n_editable_impl_calc.py,,\n";
    let url = format!("{SITE}/calc-0.1.0.dist-info/direct_url.json");
    let mut all = edits.to_vec();
    all.push((&record, Some(listed)));
    all.push((
        &url,
        Some(r#"{"dir_info": {"editable": true}, "url": "file:///dev/shm/speccoder-tree-at"}"#),
    ));
    assert_eq!(judged(&[], &all), None);
    let hooked = format!("{honest}\nimport zz_site_hook\n");
    all[1] = (module.as_str(), Some(hooked.as_str()));
    // The `.pth` comes first, and its module is not the one hatchling writes.
    let finding = judged(&[], &all).expect("a finding");
    assert_eq!(finding.path, pth);
}

#[test]
fn a_local_folders_distribution_installs_only_the_candidates_own_sources() {
    let record = format!("{SITE}/calc-0.1.0.dist-info/RECORD");
    let url = format!("{SITE}/calc-0.1.0.dist-info/direct_url.json");
    let local = r#"{"dir_info": {}, "url": "file:///dev/shm/speccoder-tree-at"}"#;
    let listed = "calc/__init__.py,,\nzz_hook.py,,\n";
    let source = "def add(a, b):\n    return a + b\n";
    let mut edits = vec![
        (record.as_str(), Some(listed)),
        (url.as_str(), Some(local)),
        ("src/calc/__init__.py", Some(source)),
    ];
    let copy = format!("{SITE}/calc/__init__.py");
    edits.push((&copy, Some(source)));
    assert_eq!(judged(&[], &edits), None);
    // Installed again (`pip install .`, the same version) after the candidate's edit.
    let old = "def add(a, b):\n    raise NotImplementedError\n";
    let base = [
        (copy.as_str(), old),
        (record.as_str(), listed),
        (url.as_str(), local),
    ];
    assert_eq!(judged(&base, &edits), None);
    let hook = format!("{SITE}/zz_hook.py");
    edits.push((&hook, Some("import unittest\n")));
    let finding = judged(&[], &edits).expect("a finding");
    assert_eq!(finding.path, hook);
    assert!(
        finding.detail.contains("local folder"),
        "{}",
        finding.detail
    );
}

#[test]
fn the_pieces_read_as_measured() {
    assert_eq!(
        record_paths("a.py,sha256=x,1\n\"b,c.py\",,\n\"d\"\"e.py\",,\n"),
        ["a.py", "b,c.py", "d\"e.py"]
    );
    assert_eq!(joined("v/lib/p/site-packages", "../../../bin/x"), "v/bin/x");
    assert_eq!(
        finder_kind("__editable___calc_0_1_0_finder.py"),
        Some(Finder::Setuptools)
    );
    assert_eq!(
        finder_kind("_editable_impl_calc.py"),
        Some(Finder::Editables)
    );
    assert_eq!(finder_kind("pkg/_editable_impl_calc.py"), None);
    assert_eq!(finder_kind("__editable___a;b_finder.py"), None);
    assert!(literal_only("{'a': '/x', \"b\": ['c\\'d']}"));
    assert!(!literal_only("{'a': f()}"));
    assert!(!literal_only("'unterminated"));
}

/// A local dependency's install script writing into another package (a tarball's
/// `postinstall`, measured: it rewrote `node_modules/is-number/index.js` and passed).
#[test]
fn a_changed_file_of_a_node_package_of_the_same_version_is_a_finding() {
    let hooked = "module.exports = 1;\nrequire('node:assert').strictEqual = () => {};\n";
    let finding =
        judged(&[], &[("node_modules/is-number/index.js", Some(hooked))]).expect("a finding");
    assert_eq!(finding.kind, FindingKind::Tampering);
    assert_eq!(finding.path, "node_modules/is-number/index.js");
    assert!(finding.detail.contains("`is-number`"), "{}", finding.detail);
    let scoped = "node_modules/@scope/lib/lib/index.js";
    let finding = judged(&[], &[(scoped, Some(hooked))]).expect("scoped");
    assert!(
        finding.detail.contains("`@scope/lib`"),
        "{}",
        finding.detail
    );
    // Nested below another package.
    let nested = "node_modules/@scope/lib/node_modules/is-number/index.js";
    let manifest = "node_modules/@scope/lib/node_modules/is-number/package.json";
    let base = [(nested, "module.exports = 1;\n"), (manifest, "{}")];
    assert!(judged(&base, &[(nested, Some(hooked))]).is_some());
    // The package's manifest touched too, its name and version kept.
    let touched = "{\"name\": \"is-number\", \"version\": \"7.0.0\", \"x\": 1}";
    let edits = [
        ("node_modules/is-number/index.js", Some(hooked)),
        ("node_modules/is-number/package.json", Some(touched)),
    ];
    assert!(judged(&[], &edits).is_some());
    // A file directly in a scope's folder names no package.
    assert_eq!(
        judged(
            &[("node_modules/@scope2", "x")],
            &[("node_modules/@scope2", Some("y"))]
        ),
        None
    );
}

#[test]
fn what_a_node_install_writes_honestly_is_no_finding() {
    let index = "node_modules/is-number/index.js";
    let manifest = "node_modules/is-number/package.json";
    // Another version, with its own files; a new file in a package (a build's output); a
    // link and a hidden file changed; a new package.
    let upgraded = "{\"name\": \"is-number\", \"version\": \"7.0.1\"}";
    assert_eq!(
        judged(
            &[],
            &[
                (manifest, Some(upgraded)),
                (index, Some("module.exports = 3;\n"))
            ]
        ),
        None
    );
    assert_eq!(
        judged(&[], &[("node_modules/is-number/build/a.node", Some("x"))]),
        None
    );
    assert_eq!(
        judged(&[], &[("node_modules/.bin/lib", Some("->../x"))]),
        None
    );
    assert_eq!(
        judged(&[], &[("node_modules/.package-lock.json", Some("{}"))]),
        None
    );
    assert_eq!(
        judged(&[], &[("node_modules/is-odd/index.js", Some("x"))]),
        None
    );
    // A copy of the candidate's own folder (npm's `--install-links`, yarn 1), changed as
    // the folder was; a copy unlike its folder is a finding.
    let manifest = r#"{"dependencies": {"is-number": "file:./vendor/is-number/"}}"#;
    let edited = "module.exports = 4;\n";
    let copied = [
        ("package.json", Some(manifest)),
        ("vendor/is-number/index.js", Some(edited)),
        (index, Some(edited)),
    ];
    assert_eq!(judged(&[], &copied), None);
    let mut unlike = copied;
    unlike[2] = (index, Some("module.exports = 5;\n"));
    assert!(judged(&[], &unlike).is_some());
}

/// A wheel's shared library past the read limit, unchanged, is the base's; a `.pth` past
/// it cannot hide its lines.
#[test]
fn large_files_are_compared_whole_and_a_large_pth_is_refused() {
    let big = "x".repeat(17 << 20);
    let lib = format!("{SITE}/pip/_big.so");
    assert_eq!(judged(&[(&lib, &big)], &[]), None);
    let mut other = big.clone();
    other.push('y');
    assert!(judged(&[(&lib, &big)], &[(&lib, Some(&other))]).is_some());
    let pth = format!("{SITE}/zz.pth");
    let padded = format!("{big}\nimport zz\n");
    let finding = judged(&[], &[(&pth, Some(&padded))]).expect("a finding");
    assert!(finding.detail.contains("too large"), "{}", finding.detail);
}

#[test]
fn a_name_that_is_not_utf8_is_refused() {
    use std::os::unix::ffi::OsStrExt;
    let dir = tempfile::tempdir().expect("a temporary folder");
    let files: Vec<(String, String)> = venv();
    let own = products(dir.path(), &files);
    let site = own.tree.join(SITE);
    let name = std::ffi::OsStr::from_bytes(b"zz\xff.pth");
    std::fs::write(site.join(name), "import zz\n").expect("a .pth");
    let finding = verify(None, &own).expect_err("a finding");
    assert_eq!(finding.kind, FindingKind::UnreadableName);
}

/// pytest loads every installed `[pytest11]` entry point by itself.
#[test]
fn a_pytest_plugin_registered_by_the_setup_is_a_finding() {
    let plugin = "[pytest11]\nzz = calc.plugin\n";
    for path in [
        "src/calc.egg-info/entry_points.txt".to_owned(),
        format!("{SITE}/zz-1.0.dist-info/entry_points.txt"),
    ] {
        let finding = judged(&[], &[(&path, Some(plugin))]).expect(&path);
        assert!(finding.detail.contains("[pytest11]"), "{}", finding.detail);
    }
    // A plugin from the index (pytest-cov), recorded by its distribution.
    let info = format!("{SITE}/pytest_cov-5.0.0.dist-info");
    assert_eq!(
        judged(
            &[],
            &[
                (
                    &format!("{info}/RECORD"),
                    Some("pytest_cov-5.0.0.dist-info/entry_points.txt,,\n")
                ),
                (
                    &format!("{info}/entry_points.txt"),
                    Some("[pytest11]\npytest_cov = pytest_cov.plugin\n")
                ),
            ]
        ),
        None
    );
    // Console scripts only: honest.
    let scripts = "[console_scripts]\ncalc-add = calc:main\n";
    assert_eq!(
        judged(
            &[],
            &[("src/calc.egg-info/entry_points.txt", Some(scripts))]
        ),
        None
    );
}

/// `src/` is on `sys.path` through `easy-install.pth`: a module the setup writes there is
/// one the candidate's code can import unread.
#[test]
fn a_module_the_setup_writes_beside_the_sources_is_a_finding() {
    let finding = judged(&[], &[("src/zz_hook.py", Some("import unittest\n"))]).expect("a finding");
    assert_eq!(finding.path, "src/zz_hook.py");
    // A build's copy of the candidate's own source (`pip install .` in the tree).
    let source = "def add(a, b):\n    return a + b\n";
    let copied = [
        ("src/calc/__init__.py", Some(source)),
        ("build/lib/calc/__init__.py", Some(source)),
    ];
    assert_eq!(judged(&[], &copied), None);
    let changed = [
        copied[0],
        ("build/lib/calc/__init__.py", Some("import unittest\n")),
    ];
    assert!(judged(&[], &changed).is_some());
}
