//! The dependency rules of `src/`, checked over the source: no folder imports one
//! that (directly or not) imports it back, `domain/` imports no other folder, and
//! only `store/` speaks SQL (names sqlx). `docs/contributing.md` draws the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every `.rs` file under `dir`.
fn sources(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().filter_map(|e| e.ok()) {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files
}

/// The lines of a source that are not comments.
fn code(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .map(str::to_string)
        .collect()
}

/// Folder -> the folders its code names as `crate::{folder}` (comments skipped).
fn dependencies(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let folders: BTreeSet<String> = std::fs::read_dir(src)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    let mut deps = BTreeMap::new();
    for folder in &folders {
        let mut uses = BTreeSet::new();
        for path in sources(&src.join(folder)) {
            for line in code(&path) {
                for (at, _) in line.match_indices("crate::") {
                    let name: String = line[at + 7..]
                        .chars()
                        .take_while(|c| c.is_alphanumeric() || *c == '_')
                        .collect();
                    if &name != folder && folders.contains(&name) {
                        uses.insert(name);
                    }
                }
            }
        }
        deps.insert(folder.clone(), uses);
    }
    deps
}

fn reaches(deps: &BTreeMap<String, BTreeSet<String>>, from: &str, to: &str) -> bool {
    let mut seen = BTreeSet::new();
    let mut stack = vec![from.to_string()];
    while let Some(folder) = stack.pop() {
        for next in deps.get(&folder).into_iter().flatten() {
            if next == to {
                return true;
            }
            if seen.insert(next.clone()) {
                stack.push(next.clone());
            }
        }
    }
    false
}

#[test]
fn folders_import_each_other_in_one_direction() {
    let deps = dependencies(&Path::new(env!("CARGO_MANIFEST_DIR")).join("src"));
    assert!(deps.contains_key("wire") && deps["api"].contains("wire"));
    let circles: Vec<String> = deps
        .iter()
        .flat_map(|(folder, uses)| {
            uses.iter()
                .filter(|used| reaches(&deps, used, folder))
                .map(move |used| format!("{folder} -> {used}"))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "import circles between folders: {circles:?}"
    );
    assert!(
        deps["domain"].is_empty(),
        "domain/ imports {:?}",
        deps["domain"]
    );
}

#[test]
fn only_the_store_speaks_sql() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let store = src.join("store");
    let speaking: Vec<String> = sources(&src)
        .into_iter()
        .filter(|path| !path.starts_with(&store) && !path.ends_with("layers.rs"))
        .filter(|path| code(path).iter().any(|line| line.contains("sqlx")))
        .map(|path| path.strip_prefix(&src).unwrap().display().to_string())
        .collect();
    assert!(speaking.is_empty(), "sqlx outside store/: {speaking:?}");
}
