//! The blocks of the README and of its guides (`docs/guide/*.md`), run verbatim by the
//! tests.

use std::process::Command;

use crate::TestServer;

/// The README followed by its guides, in name order: the text the headings are found in.
pub fn docs() -> String {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/..");
    let mut text = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let mut guides: Vec<_> = std::fs::read_dir(format!("{root}/docs/guide"))
        .expect("docs/guide")
        .map(|entry| entry.expect("a guide").path())
        .filter(|path| path.extension().is_some_and(|e| e == "md"))
        .collect();
    guides.sort();
    for guide in guides {
        text.push('\n');
        text.push_str(&std::fs::read_to_string(&guide).expect("a guide"));
    }
    text
}

/// The first ```bash block after `heading` in the README or a guide.
pub fn readme_block(heading: &str) -> String {
    readme_blocks(heading).remove(0)
}

/// The ```bash blocks of the section under `heading` (in the README or a guide), up to
/// the next `## ` heading.
pub fn readme_blocks(heading: &str) -> Vec<String> {
    let readme = docs();
    let mut section = &readme[readme.find(heading).expect("README heading") + heading.len()..];
    if let Some(next) = section.find("\n## ") {
        section = &section[..next];
    }
    let mut blocks = Vec::new();
    while let Some(start) = section.find("```bash\n") {
        let start = start + "```bash\n".len();
        let end = start + section[start..].find("\n```").expect("block end");
        blocks.push(section[start..end].to_string());
        section = &section[end..];
    }
    assert!(!blocks.is_empty(), "no bash block under {heading}");
    blocks
}

/// Runs a README block in a fresh directory holding the server's data directory as
/// `flotilla-data` and the repository's `examples/`, with the workspace's binaries
/// (`flotilla`) first on the PATH, and `env` set; returns its output. The block runs
/// in a process group of its own, killed whole afterwards (a server it started in the
/// background included).
pub fn run_block(server: &TestServer, env: &[(&str, &str)], script: &str) -> String {
    use std::os::unix::process::CommandExt;
    let workdir = tempfile::tempdir().expect("temp dir");
    std::os::unix::fs::symlink(server.data_dir.path(), workdir.path().join("flotilla-data"))
        .expect("link the data directory");
    std::os::unix::fs::symlink(
        concat!(env!("CARGO_MANIFEST_DIR"), "/../examples"),
        workdir.path().join("examples"),
    )
    .expect("link the examples");
    let bin = crate::binary("flotilla-server");
    let path = format!(
        "{}:{}",
        bin.parent().expect("target dir").display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let child = Command::new("bash")
        .args(["-uo", "pipefail", "-c", script])
        .current_dir(workdir.path())
        .env_remove("FLOTILLA_TOKEN")
        .env("PATH", path)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .process_group(0)
        .spawn()
        .expect("bash");
    let group = child.id() as i32;
    let reader = std::thread::spawn(move || child.wait_with_output());
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(120);
    while !reader.is_finished() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    // SAFETY: kill(2) of the process group the block ran in.
    unsafe {
        libc::kill(-group, libc::SIGKILL);
    }
    let output = reader.join().expect("reader").expect("bash output");
    String::from_utf8_lossy(&output.stdout).to_string() + &String::from_utf8_lossy(&output.stderr)
}

/// The first plain ``` block after `marker` (in the README or a guide).
pub fn readme_output(marker: &str) -> String {
    let readme = docs();
    let section = &readme[readme.find(marker).expect("README marker")..];
    let start = section.find("```\n").expect("block") + 4;
    let end = start + section[start..].find("\n```").expect("block end");
    section[start..end].to_string()
}
