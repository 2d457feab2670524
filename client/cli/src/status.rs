//! `flotilla status` (the tree, a live view or one line per event) and `flotilla wait`.

use std::collections::{BTreeMap, VecDeque};
use std::io::{IsTerminal, Write};
use std::time::Duration;

use clap::{Args, ValueEnum};
use flotilla_client::v1::{
    self, ClusterResourceStatus, Readiness, ResourceStatus, RsyncStatus, StatusOutput, WatchEvent,
    WatchEventType, WatchStatusRequest,
};

use crate::output::{Format, columns, paint};
use crate::{Ctx, Exit, dynamic};

/// What the status shows (the seed's outputs).
#[derive(Debug, Clone, Copy, ValueEnum, Default)]
pub enum View {
    /// Counts only.
    Summary,
    /// The tree app → cluster → resource with statuses.
    #[default]
    All,
    /// The tree with each resource's metadata, spec and status from the cluster.
    Detail,
    /// Rendered resources and their rsync status only.
    Rsync,
}

#[derive(Args)]
pub struct StatusArgs {
    /// The deployment intent group.
    group: String,
    /// What to show (-o sets the format: table for the tree, json, yaml).
    #[arg(long, value_enum, default_value_t = View::All)]
    view: View,
    /// Only these apps.
    #[arg(long = "app")]
    apps: Vec<String>,
    /// Only these clusters.
    #[arg(long = "cluster")]
    clusters: Vec<String>,
    /// Only resources with these names.
    #[arg(long = "resource")]
    resources: Vec<String>,
    /// An earlier instance (from `flotilla get` … ListInstances) instead of the current.
    #[arg(long)]
    instance: Option<String>,
    /// Follow changes: a live view on a terminal, one line per event otherwise
    /// (NDJSON with -o json); resumes by itself after a dropped connection.
    #[arg(short, long)]
    watch: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Condition {
    /// Every rendered resource Applied.
    Applied,
    /// Applied, and every resource Present and Ready on its cluster.
    Ready,
    /// The group TERMINATED and nothing left applied.
    Terminated,
}

#[derive(Args)]
pub struct WaitArgs {
    /// The deployment intent group.
    group: String,
    /// The condition to wait for (the global --timeout bounds the wait, as in
    /// kubectl wait).
    #[arg(long = "for", value_enum)]
    condition: Condition,
}

fn view_output(view: View) -> StatusOutput {
    match view {
        View::Summary => StatusOutput::Summary,
        View::All => StatusOutput::All,
        View::Detail => StatusOutput::Detail,
        View::Rsync => StatusOutput::Rsync,
    }
}

/// `RSYNC_STATUS_NOT_PRESENT`-style names as the seed writes them: `NotPresent`.
fn pretty(name: &str, prefix: &str) -> String {
    name.strip_prefix(prefix)
        .unwrap_or(name)
        .split('_')
        .map(|w| {
            let mut chars = w.chars();
            match chars.next() {
                Some(first) => first.to_string() + &chars.as_str().to_ascii_lowercase(),
                None => String::new(),
            }
        })
        .collect()
}

fn rsync(status: i32) -> String {
    match RsyncStatus::try_from(status) {
        Ok(RsyncStatus::Unspecified) | Err(_) => "-".into(),
        Ok(s) => pretty(s.as_str_name(), "RSYNC_STATUS_"),
    }
}

fn presence(status: i32) -> String {
    match ClusterResourceStatus::try_from(status) {
        Ok(ClusterResourceStatus::Unspecified) | Err(_) => "-".into(),
        Ok(s) => pretty(s.as_str_name(), "CLUSTER_RESOURCE_STATUS_"),
    }
}

fn readiness(status: i32) -> String {
    match Readiness::try_from(status) {
        Ok(Readiness::Unspecified) | Err(_) => "-".into(),
        Ok(s) => pretty(s.as_str_name(), "READINESS_"),
    }
}

/// Colours the statuses that need attention.
fn highlight(text: &str) -> String {
    match text {
        "Failed" => paint(text, "31"),
        "Retrying" | "NotPresent" | "NotReady" => paint(text, "33"),
        "Applied" | "Present" | "Ready" => paint(text, "32"),
        _ => text.to_string(),
    }
}

pub async fn status(ctx: &Ctx, args: StatusArgs) -> anyhow::Result<()> {
    if args.watch {
        return watch(ctx, args).await;
    }
    let request = v1::GetDeploymentIntentGroupStatusRequest {
        name: args.group.clone(),
        output: view_output(args.view).into(),
        apps: args.apps.clone(),
        clusters: args.clusters.clone(),
        resources: args.resources.clone(),
        instance: args.instance.clone().unwrap_or_default(),
        ..Default::default()
    };
    let status = full_status(ctx, request).await?;
    match ctx.output {
        Format::Table | Format::Wide | Format::Name => {
            print!("{}", tree(&status));
            Ok(())
        }
        format => {
            let json = dynamic::to_json(&dynamic::from_typed(&status, "ResourceStatus"));
            crate::output::print(format, &[json], true)
        }
    }
}

/// The status with every page of its resources merged into one.
async fn full_status(
    ctx: &Ctx,
    mut request: v1::GetDeploymentIntentGroupStatusRequest,
) -> anyhow::Result<ResourceStatus> {
    let mut client = ctx.client().await?;
    request.page_size = 1000;
    let mut status = client
        .status
        .get_deployment_intent_group_status(request.clone())
        .await?
        .into_inner();
    while !status.next_page_token.is_empty() {
        request.page_token = std::mem::take(&mut status.next_page_token);
        let page = client
            .status
            .get_deployment_intent_group_status(request.clone())
            .await?
            .into_inner();
        status.resources.extend(page.resources);
        status.next_page_token = page.next_page_token;
    }
    Ok(status)
}

/// The status as a tree: the group's state and counts, then app → cluster → resource.
fn tree(status: &ResourceStatus) -> String {
    let r = status.rsync_status.unwrap_or_default();
    let c = status.cluster_status.unwrap_or_default();
    let d = status.readiness.unwrap_or_default();
    let mut out = format!(
        "{}\n  state {}  instance {}\n  rsync: pending {} applied {} failed {} retrying {} terminated {}\n  cluster: present {} not present {} unknown {}   readiness: ready {} not ready {}\n",
        status.name,
        status.state,
        if status.instance.is_empty() {
            "-"
        } else {
            &status.instance
        },
        r.pending,
        r.applied,
        if r.failed > 0 {
            paint(&r.failed.to_string(), "31")
        } else {
            r.failed.to_string()
        },
        if r.retrying > 0 {
            paint(&r.retrying.to_string(), "33")
        } else {
            r.retrying.to_string()
        },
        r.terminated,
        c.present,
        c.not_present,
        c.unknown,
        d.ready,
        d.not_ready,
    );
    for app in &status.resources {
        out.push_str(&format!("{}\n", app.app_name));
        for cluster in &app.clusters {
            out.push_str(&format!(
                "  {}/{}\n",
                cluster.cluster_provider, cluster.name
            ));
            let rows: Vec<Vec<String>> = cluster
                .resources
                .iter()
                .map(|e| {
                    let kind = e.gvk.as_ref().map(|g| g.kind.clone()).unwrap_or_default();
                    vec![
                        format!("    {kind}"),
                        e.name.clone(),
                        highlight(&rsync(e.rsync_status)),
                        highlight(&presence(e.cluster_status)),
                        highlight(&readiness(e.readiness)),
                    ]
                })
                .collect();
            out.push_str(&columns(&rows));
        }
    }
    out
}

/// (app, cluster) → (kind, name) → (rsync status, cluster status, readiness).
type Resources = BTreeMap<(String, String), BTreeMap<(String, String), (i32, i32, i32)>>;

/// What a watch has seen: per app and cluster, each resource's statuses.
#[derive(Default)]
struct Board {
    state: String,
    connectivity: BTreeMap<String, String>,
    resources: Resources,
    counts: Option<WatchEvent>,
    latest: VecDeque<String>,
    synced: bool,
}

impl Board {
    fn apply(&mut self, event: &WatchEvent) -> Option<String> {
        match event.r#type() {
            WatchEventType::LifecycleChanged => {
                self.state = event.state.clone();
                Some(format!(
                    "lifecycle {} instance {}",
                    event.state, event.instance
                ))
            }
            WatchEventType::ConnectivityChanged => {
                let value = pretty(event.connectivity().as_str_name(), "CONNECTIVITY_");
                self.connectivity
                    .insert(event.cluster.clone(), value.clone());
                Some(format!("cluster {} {}", event.cluster, value))
            }
            WatchEventType::ResourceChanged => {
                let r = event.resource.as_ref()?;
                let kind = r.gvk.as_ref().map(|g| g.kind.clone()).unwrap_or_default();
                self.resources
                    .entry((event.app_name.clone(), event.cluster.clone()))
                    .or_default()
                    .insert(
                        (kind.clone(), r.name.clone()),
                        (r.rsync_status, r.cluster_status, r.readiness),
                    );
                let line = format!(
                    "{} {} {kind} {}: {} {} {}",
                    event.app_name,
                    event.cluster.rsplit('/').next().unwrap_or_default(),
                    r.name,
                    rsync(r.rsync_status),
                    presence(r.cluster_status),
                    readiness(r.readiness)
                );
                if self.synced {
                    self.latest.push_front(line.clone());
                    self.latest.truncate(5);
                }
                Some(line)
            }
            WatchEventType::CountsChanged => {
                self.counts = Some(event.clone());
                let r = event.rsync_status.unwrap_or_default();
                let d = event.readiness.unwrap_or_default();
                Some(format!(
                    "counts applied {} pending {} failed {} retrying {} ready {} not ready {}",
                    r.applied, r.pending, r.failed, r.retrying, d.ready, d.not_ready
                ))
            }
            WatchEventType::Synced => {
                self.synced = true;
                Some("synced".into())
            }
            WatchEventType::ResyncRequired => {
                self.resources.clear();
                Some("resync required: a fresh snapshot follows".into())
            }
            _ => None,
        }
    }

    /// The live view: per app × cluster, applied and ready with progress bars.
    fn render(&self, group: &str) -> String {
        let mut out = format!(
            "{group}\nstate {}\n\n",
            if self.state.is_empty() {
                "-"
            } else {
                &self.state
            }
        );
        let mut rows = vec![vec![
            "APP".to_string(),
            "CLUSTER".into(),
            "CONNECTIVITY".into(),
            "APPLIED".into(),
            String::new(),
            "READY".into(),
            String::new(),
        ]];
        for ((app, cluster), resources) in &self.resources {
            let rendered: Vec<_> = resources.values().filter(|(r, _, _)| *r != 0).collect();
            let applied = rendered
                .iter()
                .filter(|(r, _, _)| *r == RsyncStatus::Applied as i32)
                .count();
            let with_readiness: Vec<_> = resources.values().filter(|(_, _, d)| *d != 0).collect();
            let ready = with_readiness
                .iter()
                .filter(|(_, _, d)| *d == Readiness::Ready as i32)
                .count();
            rows.push(vec![
                app.clone(),
                cluster.rsplit('/').next().unwrap_or_default().to_string(),
                self.connectivity
                    .get(cluster)
                    .cloned()
                    .unwrap_or_else(|| "-".into()),
                format!("{applied}/{}", rendered.len()),
                bar(applied, rendered.len()),
                format!("{ready}/{}", with_readiness.len()),
                bar(ready, with_readiness.len()),
            ]);
        }
        out.push_str(&columns(&rows));
        out.push_str("\nlatest changes:\n");
        for line in &self.latest {
            out.push_str(&format!("  {line}\n"));
        }
        out
    }
}

/// `[#####-----] 50%`
fn bar(done: usize, total: usize) -> String {
    let percent = (done * 100).checked_div(total).unwrap_or(100);
    let filled = percent / 10;
    format!(
        "[{}{}] {percent:>3}%",
        "#".repeat(filled),
        "-".repeat(10 - filled)
    )
}

async fn watch(ctx: &Ctx, args: StatusArgs) -> anyhow::Result<()> {
    let client = ctx.stream_client().await?;
    let mut watch = client.watch_status(WatchStatusRequest {
        name: args.group.clone(),
        output: view_output(args.view).into(),
        apps: args.apps,
        clusters: args.clusters,
        resources: args.resources,
        ..Default::default()
    });
    // The watch runs on its own task; the screen is redrawn from a channel and a tick
    // (both cancel-safe), so the last change is drawn even when nothing follows it.
    let (events, mut received) = tokio::sync::mpsc::channel(1024);
    let reader = tokio::spawn(async move {
        loop {
            let event = watch.next().await;
            let failed = event.is_err();
            if events.send(event).await.is_err() || failed {
                return;
            }
        }
    });
    let live =
        std::io::stdout().is_terminal() && matches!(ctx.output, Format::Table | Format::Wide);
    let mut board = Board::default();
    let mut dirty = false;
    let mut tick = tokio::time::interval(Duration::from_millis(150));
    let result = loop {
        let event = tokio::select! {
            event = received.recv() => match event {
                Some(Ok(event)) => event,
                Some(Err(error)) => break Err(error.into()),
                None => break Ok(()),
            },
            _ = tick.tick() => {
                if live && dirty && board.synced {
                    let mut out = std::io::stdout().lock();
                    write!(out, "\x1b[H\x1b[2J{}", board.render(&args.group))?;
                    out.flush()?;
                    dirty = false;
                }
                continue;
            }
            _ = tokio::signal::ctrl_c() => break Ok(()),
        };
        let line = board.apply(&event);
        dirty = true;
        let mut out = std::io::stdout().lock();
        if live {
            continue;
        } else if matches!(ctx.output, Format::Json) {
            let json = dynamic::to_json(&dynamic::from_typed(&event, "WatchEvent"));
            writeln!(out, "{}", serde_json::to_string(&json)?)?;
        } else if let Some(line) = line {
            writeln!(out, "{line}")?;
        }
        out.flush()?;
    };
    reader.abort();
    result
}

pub async fn wait(ctx: &Ctx, args: WaitArgs) -> anyhow::Result<()> {
    let client = ctx.stream_client().await?;
    let mut watch = client.watch_status(WatchStatusRequest {
        name: args.group.clone(),
        output: StatusOutput::Summary.into(),
        ..Default::default()
    });
    let deadline = tokio::time::Instant::now() + ctx.timeout;
    let mut state = String::new();
    loop {
        let event = match tokio::time::timeout_at(deadline, watch.next()).await {
            Ok(event) => event?,
            Err(_) => {
                let pending = blocking(ctx, &args.group, args.condition, false).await?;
                return Err(Exit::new(
                    6,
                    format!(
                        "timed out after {:?} waiting for {} to be {}; still pending:\n{pending}",
                        ctx.timeout,
                        args.group,
                        format!("{:?}", args.condition).to_lowercase(),
                    ),
                )
                .into());
            }
        };
        if event.r#type() == WatchEventType::LifecycleChanged {
            state = event.state.clone();
        }
        if event.r#type() != WatchEventType::CountsChanged {
            continue;
        }
        let r = event.rsync_status.unwrap_or_default();
        let c = event.cluster_status.unwrap_or_default();
        let d = event.readiness.unwrap_or_default();
        if r.failed > 0 && args.condition != Condition::Terminated {
            let failed = blocking(ctx, &args.group, args.condition, true).await?;
            return Err(Exit::new(
                7,
                format!(
                    "{} has {} failed resource(s):\n{failed}",
                    args.group, r.failed
                ),
            )
            .into());
        }
        let applied = r.applied > 0 && r.pending + r.retrying + r.failed == 0;
        let reached = match args.condition {
            Condition::Applied => applied && state == "INSTANTIATED",
            Condition::Ready => {
                applied
                    && state == "INSTANTIATED"
                    && c.not_present + c.unknown == 0
                    && d.not_ready == 0
            }
            Condition::Terminated => {
                state == "TERMINATED" && r.applied + r.pending + r.retrying == 0
            }
        };
        if reached {
            println!(
                "{}: {}",
                args.group,
                format!("{:?}", args.condition).to_lowercase()
            );
            return Ok(());
        }
    }
}

/// The resources that keep `group` from `condition` (or the Failed ones), one per line.
async fn blocking(
    ctx: &Ctx,
    group: &str,
    condition: Condition,
    failed_only: bool,
) -> anyhow::Result<String> {
    // Every page: a large group's blocking resources may be past the first.
    let request = v1::GetDeploymentIntentGroupStatusRequest {
        name: group.into(),
        output: StatusOutput::All.into(),
        ..Default::default()
    };
    let status = full_status(ctx, request).await?;
    let mut rows = Vec::new();
    for app in &status.resources {
        for cluster in &app.clusters {
            for e in &cluster.resources {
                let stuck = if failed_only {
                    e.rsync_status == RsyncStatus::Failed as i32
                } else {
                    match condition {
                        Condition::Applied => {
                            e.rsync_status != 0 && e.rsync_status != RsyncStatus::Applied as i32
                        }
                        Condition::Ready => {
                            (e.rsync_status != 0 && e.rsync_status != RsyncStatus::Applied as i32)
                                || e.cluster_status != ClusterResourceStatus::Present as i32
                                || e.readiness == Readiness::NotReady as i32
                        }
                        Condition::Terminated => {
                            e.rsync_status != 0 && e.rsync_status != RsyncStatus::Terminated as i32
                        }
                    }
                };
                if stuck {
                    let kind = e.gvk.as_ref().map(|g| g.kind.clone()).unwrap_or_default();
                    rows.push(vec![
                        format!("  {}", app.app_name),
                        cluster.name.clone(),
                        kind,
                        e.name.clone(),
                        rsync(e.rsync_status),
                        presence(e.cluster_status),
                        readiness(e.readiness),
                    ]);
                }
            }
        }
    }
    if rows.is_empty() {
        return Ok(format!("  (group state {})\n", status.state));
    }
    Ok(columns(&rows))
}
