//! What the bench's processes cost: resident memory and CPU time, from /proc.

pub fn rss_kib(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find(|l| l.starts_with(name))
            .and_then(|l| l.split_whitespace().nth(1))
            .and_then(|v| v.parse().ok())
            .unwrap_or(0)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

/// A process's command name and CPU ticks (user + system) from its /proc stat line.
fn ticks(stat: &str) -> Option<(String, u64)> {
    // pid (comm) state ... field 14 utime, 15 stime; comm may hold spaces.
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let comm = stat[open + 1..close].to_string();
    let rest: Vec<&str> = stat[close + 2..].split_whitespace().collect();
    let used = rest.get(11)?.parse::<u64>().ok()? + rest.get(12)?.parse::<u64>().ok()?;
    Some((comm, used))
}

/// CPU seconds process `pid` used so far (0 once it is gone).
pub fn process_cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    ticks(&stat).map_or(0.0, |(_, t)| t as f64 / 100.0)
}

/// CPU seconds (user + system) used so far by the processes whose command name is one
/// of `names` ("" = this process), from /proc.
pub fn cpu_seconds(names: &[&str]) -> f64 {
    let mut total = 0;
    if names.contains(&"") {
        let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
        total += ticks(&stat).map_or(0, |(_, t)| t);
    }
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if !entry
            .file_name()
            .to_string_lossy()
            .bytes()
            .all(|b| b.is_ascii_digit())
        {
            continue;
        }
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        if let Some((comm, used)) = ticks(&stat)
            && names.iter().any(|n| !n.is_empty() && comm.starts_with(n))
        {
            total += used;
        }
    }
    // USER_HZ is 100 on Linux.
    total as f64 / 100.0
}

/// The process families P5's CPU is reported for.
pub const CPU_FAMILIES: [(&str, &[&str]); 5] = [
    ("server", &["flotilla-server"]),
    ("postgres", &["postgres"]),
    ("etcd", &["etcd"]),
    ("agents", &["flotilla-agent"]),
    ("bench", &[""]),
];

pub fn cpu_snapshot() -> Vec<f64> {
    CPU_FAMILIES.iter().map(|(_, n)| cpu_seconds(n)).collect()
}

/// CPU seconds each of [`CPU_FAMILIES`] used since `before`.
pub fn cpu_since(before: &[f64]) -> Vec<f64> {
    cpu_snapshot()
        .iter()
        .zip(before)
        .map(|(after, before)| after - before)
        .collect()
}

/// "server 3.1 s, postgres 2.0 s, ..." of `spent` (from [`cpu_since`]).
pub fn cpu_report(spent: &[f64]) -> String {
    CPU_FAMILIES
        .iter()
        .zip(spent)
        .map(|((name, _), spent)| format!("{name} {spent:.1} s"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// CPU seconds the whole machine spent busy so far (all CPUs; everything but idle and
/// I/O wait), from /proc/stat: with [`cpu_seconds`], whether a figure was set by a
/// saturated machine and by whom.
pub fn machine_busy_seconds() -> f64 {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let ticks: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|v| v.parse().ok())
        .collect();
    let idle = ticks.get(3).copied().unwrap_or(0) + ticks.get(4).copied().unwrap_or(0);
    (ticks.iter().sum::<u64>() - idle) as f64 / 100.0
}

/// Server and database CPU microseconds per unit of work (`spent` from [`cpu_since`]).
pub fn per_unit(spent: &[f64], units: usize) -> (f64, f64) {
    let per_unit = |family: usize| spent[family] * 1e6 / units.max(1) as f64;
    (per_unit(0), per_unit(1))
}

/// The row of what a check's work cost per unit (an action, a converged resource), as
/// [`per_unit`] gives it: what a slower or busier machine cannot hide. Issue 61 asks
/// for half of 2026-12-07's figures; the row is a figure to compare runs and builds
/// by, not a check.
pub fn per_unit_row(
    backend: flotilla_tests::Backend,
    label: &'static str,
    id: &'static str,
    (server_us, database_us): (f64, f64),
    units: &str,
) -> super::Row {
    super::Row {
        backend: label,
        id,
        figure: match backend {
            flotilla_tests::Backend::Postgres => format!(
                "{:.0} us (server {server_us:.0} + postgres {database_us:.0})",
                server_us + database_us
            ),
            flotilla_tests::Backend::Sqlite => {
                format!("{server_us:.0} us (server, SQLite in it)")
            }
        },
        baseline: units.to_string(),
        ratio: "-".into(),
        target: "(figure)".into(),
        pass: true,
        gating: false,
        unit: super::Unit::per(server_us + database_us, "CPU us"),
    }
}
