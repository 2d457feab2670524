//! The bench's command line: `--help` describes it and starts nothing; an unknown flag
//! is refused (it used to start a full eleven-minute run with a hundred processes).

use std::process::Command;
use std::time::{Duration, Instant};

/// Runs the bench binary cargo built for this test with `args`: (exit code, output).
fn bench(args: &[&str]) -> (Option<i32>, String) {
    let started = Instant::now();
    let output = Command::new(env!("CARGO_BIN_EXE_flotilla-bench"))
        .args(args)
        .output()
        .expect("run flotilla-bench");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{args:?} ran for {:?}",
        started.elapsed()
    );
    let text = String::from_utf8_lossy(&output.stdout).to_string()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), text)
}

#[test]
fn help_describes_the_bench_and_unknown_flags_are_refused() {
    let (code, text) = bench(&["--help"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("--quick")
            && text.contains("--p10")
            && text.contains("--backend")
            && text.contains("--scale"),
        "{text}"
    );
    assert!(
        !text.contains("loading etcd"),
        "--help started a run: {text}"
    );
    for wrong in [
        &["--quik"][..],
        &["--backend", "mysql"],
        &["extra"],
        // A scale is a whole multiple of the full fleet, and scaled runs are full runs.
        &["--scale", "0"],
        &["--scale", "1,x"],
        &["--scale", "10", "--quick"],
        &["--scale", "10", "--p10"],
    ] {
        let (code, text) = bench(wrong);
        assert_eq!(code, Some(2), "{wrong:?}: {text}");
        assert!(text.contains("error:"), "{wrong:?}: {text}");
    }
    // A target alone runs at one scale.
    let (code, text) = bench(&["--p8", "--scale", "1,10"]);
    assert_eq!(code, Some(1), "{text}");
    assert!(text.contains("take one --scale"), "{text}");
}
