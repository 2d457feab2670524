//! P7: one state sync pass over `clusters` RUNNING container clusters of `vms` VMs
//! each, with 1% of the VMs changed out of band in the sim IaaS (half stopped, half
//! deleted), on a fresh database of the backend. State sync is a background task, not
//! an RPC: the pass runs in process through the server's own code
//! (`ContainerClusters::sync_states`: its SQL reads, the IaaS read, the ALERT
//! writes). The baseline is a bare SQL read of the same rows (the settled clusters,
//! their VM maps and the IaaS's VMs), measured in the same run on the same database.
//! The pass must find every changed VM: it raises ALERT on exactly the clusters that
//! hold one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use flotilla_server::app::container_clusters::{ClusterOptions, ContainerClusters};
use flotilla_server::domain::cluster_workflow::Observed;
use flotilla_server::domain::container_cluster::{ClusterState, Desired, Lifecycle};
use flotilla_server::ids::ContainerClusterId;
use flotilla_server::infra::sim::SimIaas;
use flotilla_server::store::Store;
use flotilla_server::store::container_cluster::{
    ClusterSpec, ClusterStatus, ClusterVm, ContainerClusterRecord, cluster_insert, cluster_vm_put,
};
use flotilla_server::tasks::Activator;
use flotilla_server::vault::Vault;
use flotilla_tests::Backend;
use sqlx::Connection;

use super::Row;

/// The scale of P7.
#[derive(Debug, Clone, Copy)]
pub struct P7Scale {
    pub clusters: usize,
    pub vms: usize,
}

pub const FULL: P7Scale = P7Scale {
    clusters: 1000,
    vms: 10,
};

pub const QUICK: P7Scale = P7Scale {
    clusters: 100,
    vms: 10,
};

impl P7Scale {
    /// `--scale n`: the full scale's clusters times `n`.
    pub fn times(n: usize) -> P7Scale {
        P7Scale {
            clusters: FULL.clusters * n,
            ..FULL
        }
    }
}

/// Passes measured (the best and the median are reported; the first pass finds the
/// changes, later ones find the same faults and write nothing).
const PASSES: usize = 5;

pub async fn run(
    backend: Backend,
    label: &'static str,
    scale: P7Scale,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let dir = tempfile::tempdir()?;
    let url = match backend {
        Backend::Sqlite => format!("sqlite://{}/p7.db?mode=rwc", dir.path().display()),
        Backend::Postgres => flotilla_tests::create_postgres_database().await,
    };
    let result = measure(&url, label, scale, rows).await;
    if backend == Backend::Postgres {
        flotilla_tests::drop_postgres_database(&url);
    }
    result
}

async fn measure(
    url: &str,
    label: &'static str,
    scale: P7Scale,
    rows: &mut Vec<Row>,
) -> Result<()> {
    let store = Store::connect(url).await?;
    let iaas = SimIaas::open(store.clone(), Duration::ZERO).await?;
    let total = scale.clusters * scale.vms;
    eprintln!(
        "P7 {label}: {} clusters x {} VMs",
        scale.clusters, scale.vms
    );
    // The IaaS's VMs, in bulk; then the book-keeping as a start would leave it.
    let mut ids = Vec::with_capacity(scale.clusters);
    {
        let mut conn = sqlx::AnyConnection::connect(url).await?;
        let mut tx = conn.begin().await?;
        let per_statement = 500;
        let all: Vec<(usize, usize)> = (0..scale.clusters)
            .flat_map(|c| (0..scale.vms).map(move |v| (c, v)))
            .collect();
        for chunk in all.chunks(per_statement) {
            let values: Vec<String> = chunk
                .iter()
                .map(|(c, v)| {
                    format!(
                        "('vm-{c}-{v}', 'p7-{c}-{v}', 'zone-a', 'small', 'net-p7', 'host-a{}', \
                         'Running', '10.0.{}.{}', 0)",
                        (c + v) % 4 + 1,
                        c % 250,
                        v + 1
                    )
                })
                .collect();
            sqlx::query(&format!(
                "INSERT INTO sim_vms (id, name, zone_id, offering_id, network_id, host_id, \
                 state, ip_address, create_time) VALUES {}",
                values.join(", ")
            ))
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
    }
    {
        let mut tx = store.begin().await?;
        for c in 0..scale.clusters {
            let id = ContainerClusterId::new();
            ids.push(id);
            let record = ContainerClusterRecord {
                id,
                display_name: format!("p7-{c}"),
                description: String::new(),
                account_name: "bench".into(),
                domain_id: "ROOT".into(),
                zone_id: "zone-a".into(),
                service_offering_id: "small".into(),
                size: scale.vms as i64,
                network_id: "net-p7".into(),
                network_cleanup: false,
                infrastructure_ref: String::new(),
                lifecycle: Lifecycle {
                    state: ClusterState::Running,
                    desired: Desired::Running,
                    provisioned: true,
                },
                spec: ClusterSpec::default(),
                status: ClusterStatus::default(),
                operation: None,
                next_run: None,
                generation: 1,
                create_time: 0,
                update_time: 0,
            };
            cluster_insert(&mut tx, &record).await?;
            for v in 0..scale.vms {
                let vm = ClusterVm {
                    vm_id: format!("vm-{c}-{v}"),
                    name: format!("p7-{c}-{v}"),
                    ordinal: v as i64,
                    observed: Observed::Running,
                    ip_address: format!("10.0.{}.{}", c % 250, v + 1),
                };
                cluster_vm_put(&mut tx, id, &vm).await?;
            }
        }
        tx.commit().await?;
    }
    let clusters = ContainerClusters::new(
        store.clone(),
        Arc::new(iaas.clone()),
        Arc::new(Vault::with_key(&[7; 32])),
        ClusterOptions::default(),
        Activator::default(),
    );
    // A pass over the settled fleet first (warms caches and plans, changes nothing).
    let quiet = clusters.sync_states().await?;
    if quiet.changed != 0 || quiet.vms != total {
        bail!(
            "a quiet pass changed {} clusters over {} VMs",
            quiet.changed,
            quiet.vms
        );
    }
    // 1% of the VMs, spread over the clusters, changed behind the book-keeping's back.
    let changed = (total / 100).max(1);
    let mut touched = std::collections::BTreeSet::new();
    for k in 0..changed {
        let c = (k * 97) % scale.clusters;
        let v = k % scale.vms;
        touched.insert(c);
        let id = format!("vm-{c}-{v}");
        if k % 2 == 0 {
            iaas.stop_out_of_band(&id).await?;
        } else {
            iaas.delete_out_of_band(&id).await?;
        }
    }
    let started = Instant::now();
    let report = clusters.sync_states().await?;
    let first = started.elapsed().as_secs_f64();
    if report.alerted != touched.len() {
        bail!(
            "the pass raised ALERT on {} clusters; {} hold a changed VM",
            report.alerted,
            touched.len()
        );
    }
    // Later passes: the same faults, nothing written.
    let mut later = Vec::new();
    let mut bare = Vec::new();
    for _ in 0..PASSES {
        let t = Instant::now();
        clusters.sync_states().await?;
        later.push(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let n = bare_read(&store, &ids).await?;
        bare.push(t.elapsed().as_secs_f64());
        if n < total {
            bail!("the bare read saw {n} rows of {total}");
        }
    }
    later.sort_by(f64::total_cmp);
    bare.sort_by(f64::total_cmp);
    let baseline = bare[bare.len() / 2];
    // One second from the full scale up (issue 61: 10,000 clusters too); less below it.
    let target = (scale.clusters as f64 / FULL.clusters as f64).clamp(0.1, 1.0);
    eprintln!(
        "  P7: first pass {:.1} ms ({} clusters alerted), later passes median {:.1} ms; bare read median {:.1} ms",
        first * 1e3,
        report.alerted,
        later[later.len() / 2] * 1e3,
        baseline * 1e3
    );
    rows.push(Row {
        backend: label,
        id: "P7 state sync",
        figure: format!("{:.0} ms ({} VMs, {} changed)", first * 1e3, total, changed),
        baseline: format!("{:.0} ms bare SQL read", baseline * 1e3),
        ratio: format!("{:.1}x", first / baseline),
        target: format!("<= {target:.1} s"),
        pass: first <= target,
        gating: true,
        unit: super::Unit::per(
            first * 1e6 / scale.clusters as f64,
            "us per container cluster",
        ),
    });
    Ok(())
}

/// The rows a pass reads, read with nothing else: the settled clusters, their VM maps
/// and the IaaS's VMs.
async fn bare_read(store: &Store, ids: &[ContainerClusterId]) -> Result<usize> {
    let mut conn = store.read().await?;
    let mut n = sqlx::query(
        "SELECT * FROM container_clusters WHERE state IN ('RUNNING', 'STOPPED', 'ALERT') \
         AND operation IS NULL",
    )
    .fetch_all(&mut *conn)
    .await?
    .len();
    let mut vm_ids = Vec::new();
    for chunk in ids.chunks(500) {
        let list: Vec<String> = chunk.iter().map(|id| format!("'{id}'")).collect();
        let rows = sqlx::query(&format!(
            "SELECT cluster_id, vm_id, name, ordinal, observed, ip_address \
             FROM container_cluster_vms WHERE cluster_id IN ({})",
            list.join(", ")
        ))
        .fetch_all(&mut *conn)
        .await?;
        n += rows.len();
        for row in rows {
            use sqlx::Row as _;
            vm_ids.push(row.try_get::<String, _>("vm_id")?);
        }
    }
    for chunk in vm_ids.chunks(500) {
        let list: Vec<String> = chunk.iter().map(|id| format!("'{id}'")).collect();
        n += sqlx::query(&format!(
            "SELECT id, name, zone_id, offering_id, network_id, host_id, state, ip_address \
             FROM sim_vms WHERE id IN ({})",
            list.join(", ")
        ))
        .fetch_all(&mut *conn)
        .await?
        .len();
    }
    Ok(n)
}
