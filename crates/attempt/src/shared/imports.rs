//! What a Python or JavaScript file imports from the project, read from its text: the
//! audit freezes the helpers the base's tests import, and the twins read them.

/// Whether `name` is a plain identifier.
fn ident(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The names a Python text imports from a module, as `(module, name, local name)`:
/// `from tests.helpers import sums, check as c`, on one line.
pub(crate) fn python_from_imports(text: &str) -> Vec<(String, String, String)> {
    let mut found = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("from ") else {
            continue;
        };
        let Some((module, names)) = rest.split_once(" import ") else {
            continue;
        };
        let names = names.trim().trim_start_matches('(').trim_end_matches(')');
        for part in names.split(',') {
            let part = part.trim();
            let (name, local) = part.split_once(" as ").unwrap_or((part, part));
            if ident(name.trim()) && ident(local.trim()) {
                found.push((
                    module.trim().to_owned(),
                    name.trim().to_owned(),
                    local.trim().to_owned(),
                ));
            }
        }
    }
    found
}

/// The project paths a module name may be, imported from the test file `path`: relative
/// (`.helpers`) from its folder, absolute from the project root and from each folder
/// above the file (where pytest puts its rootdir on `sys.path`).
pub(crate) fn python_module_paths(module: &str, path: &str) -> Vec<String> {
    let folder = path.rsplit_once('/').map_or("", |(f, _)| f);
    let dots = module.len() - module.trim_start_matches('.').len();
    let dotted = module.trim_start_matches('.');
    if dotted.is_empty() || !dotted.split('.').all(ident) {
        return Vec::new();
    }
    let file = dotted.replace('.', "/");
    let join = |dir: &str| {
        if dir.is_empty() {
            [format!("{file}.py"), format!("{file}/__init__.py")]
        } else {
            [
                format!("{dir}/{file}.py"),
                format!("{dir}/{file}/__init__.py"),
            ]
        }
    };
    if dots > 0 {
        let mut dir = folder;
        for _ in 1..dots {
            dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
        }
        return join(dir).to_vec();
    }
    let mut paths = Vec::new();
    let mut dir = folder;
    loop {
        paths.extend(join(dir));
        if dir.is_empty() {
            break;
        }
        dir = dir.rsplit_once('/').map_or("", |(d, _)| d);
    }
    paths
}

/// The relative specifiers a JavaScript or TypeScript text loads (`require("./helpers")`,
/// `from "../support/check"`, `import "./setup"`), each on its line.
pub(crate) fn javascript_relative_imports(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for line in text.lines() {
        for head in ["require(", "from ", "import "] {
            let mut rest = line;
            while let Some(at) = rest.find(head) {
                rest = &rest[at + head.len()..];
                let Some(quote) = rest.chars().next().filter(|c| matches!(c, '"' | '\'')) else {
                    continue;
                };
                let Some((spec, _)) = rest[1..].split_once(quote) else {
                    continue;
                };
                if spec.starts_with("./") || spec.starts_with("../") {
                    found.push(spec.to_owned());
                }
            }
        }
    }
    found.sort();
    found.dedup();
    found
}

/// The project paths a relative JavaScript specifier from the file `path` may be: the
/// file itself, with each extension, or its folder's index. `None` when it leaves the
/// project.
pub(crate) fn javascript_module_paths(spec: &str, path: &str) -> Option<Vec<String>> {
    let mut parts: Vec<&str> = path.split('/').collect();
    parts.pop();
    for part in spec.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                parts.pop()?;
            }
            p => parts.push(p),
        }
    }
    let base = parts.join("/");
    let mut paths = vec![base.clone()];
    for ext in ["js", "cjs", "mjs", "ts", "cts", "mts", "jsx", "tsx"] {
        paths.push(format!("{base}.{ext}"));
        paths.push(format!("{base}/index.{ext}"));
    }
    Some(paths)
}
