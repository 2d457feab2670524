//! P9 (issue 22): changing a running deployment. On the converged P1–P6 fleet, one app
//! of the group's apps (1% at full scale: 1 of 100) gets new ConfigMap data; the pending
//! revision is approved and rolled out. Measured: the applies and deletes the agents
//! acknowledged for it (rsync's counters on the server's /metrics), which must be
//! exactly the changed resources and none, and the time from the rollout call until
//! every resource of the new instance is Applied. Baseline, in the same run: the outage
//! path, terminate (until every delete is done) then instantiate (until converged).

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use flotilla_client::Client;
use flotilla_client::v1::*;
use flotilla_tests::metrics::rsync_succeeded;

use super::{
    Backend, DIG, Row, Scale, instantiate, setup, start_agents, start_metered, summary,
    wait_converged,
};

/// The manifests of app `app` with every ConfigMap's data changed.
fn changed_manifests(app: usize, docs: usize) -> String {
    (0..docs)
        .map(|d| {
            format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a{app}-cm{d}\ndata:\n  key: changed-{d}\n"
            )
        })
        .collect::<Vec<_>>()
        .join("---\n")
}

/// Polls the summary until `done` holds of its rsync counts.
async fn wait_rsync(
    client: &mut Client,
    scale: Scale,
    what: &str,
    done: impl Fn(&RsyncStatusCounts) -> bool,
) -> Result<()> {
    let deadline = Instant::now() + scale.patience();
    loop {
        let r = summary(client).await?.rsync_status.unwrap_or_default();
        if done(&r) {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("{what}: {r:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

pub async fn run(
    client: &mut Client,
    metrics: &str,
    scale: Scale,
    (backend, label): (Backend, &'static str),
    rows: &mut Vec<Row>,
) -> Result<()> {
    let total = scale.apps * scale.clusters * scale.docs;
    let changed = scale.clusters * scale.docs;
    // P5 cut agents; start from a converged instance.
    wait_converged(client, scale).await?;
    let version = DIG
        .rsplit_once("/deploymentIntentGroups/")
        .expect("a group")
        .0;
    let l = &mut client.lifecycle;
    l.update_app(UpdateAppRequest {
        app: Some(App {
            name: format!("{version}/apps/a0"),
            manifests: changed_manifests(0, scale.docs),
            ..Default::default()
        }),
        update_mask: Some(prost_types::FieldMask {
            paths: vec!["manifests".into()],
        }),
    })
    .await?;
    l.approve_deployment_intent_group(ApproveDeploymentIntentGroupRequest {
        name: DIG.into(),
        ..Default::default()
    })
    .await?;
    let (applies, deletes) = (
        rsync_succeeded(metrics, "apply"),
        rsync_succeeded(metrics, "delete"),
    );
    let cpu = super::cpu::cpu_snapshot();
    let started = Instant::now();
    l.rollout_deployment_intent_group(RolloutDeploymentIntentGroupRequest {
        name: DIG.into(),
        ..Default::default()
    })
    .await?;
    let call = started.elapsed().as_secs_f64();
    wait_rsync(client, scale, "the rollout converges", |r| {
        r.applied == total as i32 && r.pending == 0
    })
    .await?;
    let update = started.elapsed().as_secs_f64();
    let update_cpu = super::cpu::per_unit(&super::cpu::cpu_since(&cpu), changed);
    // Anything sent beyond the difference would still be counted a moment later.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let sent_applies = rsync_succeeded(metrics, "apply") - applies;
    let sent_deletes = rsync_succeeded(metrics, "delete") - deletes;

    // Baseline: the outage path, terminate then instantiate, to the same end.
    let started = Instant::now();
    let l = &mut client.lifecycle;
    l.terminate_deployment_intent_group(TerminateDeploymentIntentGroupRequest {
        name: DIG.into(),
        ..Default::default()
    })
    .await?;
    wait_rsync(client, scale, "the terminate finishes", |r| {
        r.terminated == total as i32
    })
    .await?;
    instantiate(client).await?;
    wait_converged(client, scale).await?;
    let outage = started.elapsed().as_secs_f64();

    let exact = sent_applies == changed as f64 && sent_deletes == 0.0;
    rows.push(Row {
        backend: label,
        id: "P9 update sends",
        figure: format!(
            "{sent_applies} applies, {sent_deletes} deletes for {changed} changed of {total}"
        ),
        baseline: format!("{total} applies + {total} deletes terminate + instantiate"),
        ratio: format!(
            "{:.2}%",
            100.0 * (sent_applies + sent_deletes) / total as f64
        ),
        target: format!("{changed} applies, 0 deletes"),
        pass: exact,
        gating: true,
        unit: None,
    });
    rows.push(super::cpu::per_unit_row(
        backend,
        label,
        "P9 CPU per changed resource",
        update_cpu,
        &format!("{changed} changed resources rolled out"),
    ));
    let ratio = update / outage;
    rows.push(Row {
        backend: label,
        id: "P9 update converge",
        figure: format!("{update:.2} s (call {call:.2} s)"),
        baseline: format!("{outage:.2} s terminate + instantiate"),
        ratio: format!("{ratio:.2}x"),
        target: "<= 0.25x".into(),
        pass: ratio <= 0.25,
        gating: !scale.quick,
        unit: super::Unit::per(update * 1e6 / changed as f64, "us per changed resource"),
    });
    Ok(())
}

/// `--p9`: P9 alone, on a server that has just instantiated and converged the instance.
pub async fn run_alone(
    backend: Backend,
    label: &'static str,
    scale: Scale,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let (server, metrics) = start_metered(backend).await;
    let mut client = server.client().await;
    let clusters = setup(&mut client, scale).await?;
    let _agents = start_agents(&server, &client, &clusters, scale).await;
    instantiate(&mut client).await?;
    let result = run(&mut client, &metrics, scale, (backend, label), rows).await;
    // The server's account of each instance: render, persist and carry-over times; the
    // whole log too, into FLOTILLA_BENCH_LOG if set (run with RUST_LOG=debug for more).
    let log = super::server_log(&server)?;
    for line in log.lines() {
        if line.contains("rendered") || line.contains("carried") || line.contains("verb done") {
            eprintln!("[{label}] {line}");
        }
    }
    result
}
