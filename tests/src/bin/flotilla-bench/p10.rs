//! P10 (issue 55): converging on real API servers. Three Kubernetes control planes
//! (kube-apiserver, controller-manager, scheduler, kwok nodes; `controlplane`), each a
//! cluster of one group of 300 Deployments (one replica) and 300 ConfigMaps. Figure:
//! from instantiate until every resource is Applied, Present and Ready (the pods too),
//! through one `flotilla-agent --backend kube` per cluster. Baseline, in the same run
//! and on the same API servers: the same manifests server-side applied straight from
//! this process with the agent's concurrency per cluster, until the same pods are Ready
//! and the same Deployments Available.
//! The API servers are the limit; the target is Flotilla within 1.2× of that. Also
//! reported: the CPU the server and agents spent per resource.

use std::time::{Duration, Instant};

use anyhow::{Result, bail};
use flotilla_client::v1::*;
use flotilla_tests::controlplane::{self, ControlPlane};
use flotilla_tests::{Backend, TestAgent, TestServer, wait_connectivity};
use futures::StreamExt;
use k8s_openapi::api::apps::v1::Deployment;
use k8s_openapi::api::core::v1::{Namespace, Pod};
use kube::api::{Api, DeleteParams, ListParams, Patch, PatchParams};
use serde_json::{Value, json};

use super::Row;
use super::cpu::{cpu_seconds, machine_busy_seconds};
use super::fleet::Fleet;

/// The scale of P10.
#[derive(Debug, Clone, Copy)]
pub struct P10Scale {
    pub clusters: usize,
    /// Deployments per cluster (and as many ConfigMaps).
    pub deployments: usize,
    pub quick: bool,
}

pub const FULL: P10Scale = P10Scale {
    clusters: 3,
    deployments: 300,
    quick: false,
};

pub const QUICK: P10Scale = P10Scale {
    clusters: 3,
    deployments: 30,
    quick: true,
};

/// API calls in flight per cluster, as the agent's kube backend (CONCURRENT_CALLS).
const CONCURRENCY: usize = 32;
const TIMEOUT: Duration = Duration::from_secs(600);
const TARGET: f64 = 1.2;
/// Rounds of the full run (each: both measurements, in alternating order).
const ROUNDS: u32 = 2;
/// The control planes' processes (command names as /proc shows them, 15 characters).
const CONTROL_PLANE: [&str; 5] = [
    "kube-apiserver",
    "kube-controller",
    "kube-scheduler",
    "kwok",
    "etcd",
];

/// The group's documents, in `namespace`.
fn documents(scale: P10Scale, namespace: &str) -> Vec<Value> {
    let mut documents = vec![json!({"apiVersion": "v1", "kind": "Namespace",
        "metadata": {"name": namespace}})];
    for i in 0..scale.deployments {
        documents.push(json!({
            "apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": format!("c{i}"), "namespace": namespace},
            "data": {"key": format!("value-{i}")},
        }));
        documents.push(json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": format!("d{i}"), "namespace": namespace},
            "spec": {
                "replicas": 1,
                "selector": {"matchLabels": {"app": format!("d{i}")}},
                "template": {
                    "metadata": {"labels": {"app": format!("d{i}")}},
                    "spec": {"containers": [{"name": "c", "image": "registry.k8s.io/pause:3.10"}]},
                },
            },
        }));
    }
    documents
}

/// Ready pods in `namespace`.
async fn ready_pods(client: &kube::Client, namespace: &str) -> Result<usize> {
    let pods: Api<Pod> = Api::namespaced(client.clone(), namespace);
    Ok(pods
        .list(&ListParams::default())
        .await?
        .items
        .iter()
        .filter(|p| {
            p.status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
        })
        .count())
}

/// Deployments in `namespace` with their replica available (what Flotilla's readiness
/// of a Deployment is, and what `kubectl wait --for=condition=Available` waits for).
async fn available_deployments(client: &kube::Client, namespace: &str) -> Result<usize> {
    let deployments: Api<Deployment> = Api::namespaced(client.clone(), namespace);
    Ok(deployments
        .list(&ListParams::default())
        .await?
        .items
        .iter()
        .filter(|d| {
            d.status
                .as_ref()
                .and_then(|s| s.available_replicas)
                .unwrap_or(0)
                >= 1
        })
        .count())
}

/// The baseline: server-side apply of every document from here, `CONCURRENCY` calls
/// per cluster at once, then until every pod is Ready and every Deployment Available
/// (the same readiness Flotilla's figure waits for).
async fn direct_apply(
    planes: &[ControlPlane],
    scale: P10Scale,
    namespace: &str,
) -> Result<Duration> {
    let mut clients = Vec::new();
    for plane in planes {
        clients.push(plane.admin().await);
    }
    let started = Instant::now();
    let applies = clients.iter().map(|client| async move {
        let documents = documents(scale, namespace);
        // The namespace first, as the agent creates one a manifest needs first.
        controlplane::apply(client, &documents[0], "direct").await?;
        let mut resources = Vec::new();
        for kind in ["ConfigMap", "Deployment"] {
            let doc = documents[1..].iter().find(|d| d["kind"] == kind).unwrap();
            resources.push(controlplane::dynamic_api(client, doc).await?);
        }
        let results: Vec<Result<(), kube::Error>> = futures::stream::iter(&documents[1..])
            .map(|doc| {
                let api = if doc["kind"] == "ConfigMap" {
                    &resources[0]
                } else {
                    &resources[1]
                };
                async move {
                    let name = doc["metadata"]["name"].as_str().unwrap_or_default();
                    api.patch(name, &PatchParams::apply("direct"), &Patch::Apply(doc))
                        .await
                        .map(|_| ())
                }
            })
            .buffer_unordered(CONCURRENCY)
            .collect()
            .await;
        results.into_iter().collect::<Result<Vec<()>, _>>()?;
        anyhow::Ok(())
    });
    for result in futures::future::join_all(applies).await {
        result?;
    }
    loop {
        let (mut ready, mut available) = (0, 0);
        for client in &clients {
            ready += ready_pods(client, namespace).await?;
            available += available_deployments(client, namespace).await?;
        }
        let wanted = scale.deployments * planes.len();
        if ready == wanted && available == wanted {
            return Ok(started.elapsed());
        }
        if started.elapsed() > TIMEOUT {
            bail!("direct apply: {ready} pods Ready after {TIMEOUT:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The group on the planes' clusters through Flotilla; returns the time to converge and
/// the server's and agents' CPU seconds over it.
async fn through_flotilla(
    backend: Backend,
    planes: &[ControlPlane],
    scale: P10Scale,
    namespace: &str,
) -> Result<(Duration, f64)> {
    let server = TestServer::start_with(backend, &["--sim", "false"]).await;
    let mut client = server.client().await;
    let manifests: Vec<String> = documents(scale, namespace)[1..]
        .iter()
        .map(|d| serde_yaml_ng::to_string(d).unwrap_or_default())
        .collect();
    let manifests = manifests.join("---\n");
    let fleet = Fleet {
        project: "p10",
        composite_app: "fleet",
        provider: "cp",
        cluster_prefix: "k",
        app_prefix: "workloads",
        clusters: planes.len(),
        apps: 1,
    };
    let clusters = fleet.create(&mut client, |_| manifests.clone()).await?;
    let mut agents = Vec::new();
    for ((cluster, token), plane) in clusters.iter().zip(planes) {
        let kubeconfig = plane.agent_kubeconfig.to_str().unwrap_or_default();
        agents.push(TestAgent::start_with(
            &server,
            cluster,
            token,
            &["--backend", "kube", "--kubeconfig", kubeconfig],
        ));
    }
    for (cluster, _) in &clusters {
        wait_connectivity(&client, cluster, Connectivity::Available).await;
    }
    let dig = fleet.dig();
    let resources = 2 * scale.deployments * planes.len();
    let pods = scale.deployments * planes.len();
    let cpu = || cpu_seconds(&["flotilla-server", "flotilla-agent"]);
    let cpu_before = cpu();
    let started = Instant::now();
    client
        .lifecycle
        .instantiate_deployment_intent_group(InstantiateDeploymentIntentGroupRequest {
            name: dig.clone(),
            ..Default::default()
        })
        .await?;
    loop {
        let s = client
            .status
            .get_deployment_intent_group_status(GetDeploymentIntentGroupStatusRequest {
                name: dig.clone(),
                output: StatusOutput::Summary as i32,
                ..Default::default()
            })
            .await?
            .into_inner();
        let (r, c, ready) = (
            s.rsync_status.unwrap_or_default(),
            s.cluster_status.unwrap_or_default(),
            s.readiness.unwrap_or_default(),
        );
        if r.applied as usize == resources
            && c.present as usize == resources + pods
            && ready.not_ready == 0
            && ready.ready as usize >= scale.deployments * planes.len() + pods
        {
            let elapsed = started.elapsed();
            // Read before the agents exit: a process's CPU time goes with it.
            let spent = cpu() - cpu_before;
            drop(agents);
            return Ok((elapsed, spent));
        }
        if started.elapsed() > TIMEOUT {
            bail!("Flotilla: not converged after {TIMEOUT:?}: {r:?} {c:?} {ready:?}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Deletes `namespace` on every plane and waits until it is gone (its pods too), so
/// that the next measurement starts on clusters as empty as the first one did.
async fn clear(planes: &[ControlPlane], namespace: &str) -> Result<()> {
    let started = Instant::now();
    for plane in planes {
        let namespaces: Api<Namespace> = Api::all(plane.admin().await);
        match namespaces.delete(namespace, &DeleteParams::default()).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.code == 404 => {}
            Err(error) => return Err(error.into()),
        }
    }
    for plane in planes {
        let namespaces: Api<Namespace> = Api::all(plane.admin().await);
        while namespaces.get_opt(namespace).await?.is_some() {
            if started.elapsed() > TIMEOUT {
                bail!("namespace {namespace} still there after {TIMEOUT:?}");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }
    eprintln!(
        "  {namespace} deleted in {:.1} s",
        started.elapsed().as_secs_f64()
    );
    Ok(())
}

pub async fn run(
    backend: Backend,
    label: &'static str,
    scale: P10Scale,
    rows: &mut Vec<Row>,
) -> Result<()> {
    eprintln!(
        "P10 {label}: {} control planes x ({} Deployments + {} ConfigMaps)",
        scale.clusters, scale.deployments, scale.deployments
    );
    let mut planes = Vec::new();
    for _ in 0..scale.clusters {
        planes.push(
            ControlPlane::start(controlplane::Options {
                nodes: 3,
                audit: false,
            })
            .await,
        );
    }
    eprintln!("  {}", planes[0].version);
    // Each measurement runs on clusters holding nothing of the other's (the namespace
    // of the one before is deleted and gone first), and the order alternates over the
    // rounds, so that neither side pays for objects the other left or for the clusters'
    // drift over the run.
    let rounds = if scale.quick { 1 } else { ROUNDS };
    let resources = 2 * scale.deployments * scale.clusters;
    let kube_cpu = || cpu_seconds(&CONTROL_PLANE);
    let (mut direct, mut flotilla, mut cpu) = (Duration::ZERO, Duration::ZERO, 0.0);
    for round in 0..rounds {
        for (turn, direct_turn) in [round % 2 == 0, round % 2 == 1].into_iter().enumerate() {
            // The planes go after the last measurement: nothing to clear for.
            let last = round + 1 == rounds && turn == 1;
            let (kube_before, busy_before) = (kube_cpu(), machine_busy_seconds());
            let spent_by = move || {
                format!(
                    "the control planes {:.1} CPU-s, the machine {:.1} busy CPU-s",
                    kube_cpu() - kube_before,
                    machine_busy_seconds() - busy_before
                )
            };
            if direct_turn {
                let namespace = format!("p10-direct-{round}");
                let took = direct_apply(&planes, scale, &namespace).await?;
                eprintln!(
                    "  direct apply: {:.2} s; {}",
                    took.as_secs_f64(),
                    spent_by()
                );
                direct += took;
                if !last {
                    clear(&planes, &namespace).await?;
                }
            } else {
                let namespace = format!("p10-flotilla-{round}");
                let (took, spent) = through_flotilla(backend, &planes, scale, &namespace).await?;
                eprintln!(
                    "  through Flotilla: {:.2} s; server + agents {spent:.2} CPU-s ({:.0} µs per resource), {}",
                    took.as_secs_f64(),
                    spent / resources as f64 * 1e6,
                    spent_by()
                );
                flotilla += took;
                cpu += spent;
                if !last {
                    clear(&planes, &namespace).await?;
                }
            }
        }
    }
    let (direct, flotilla, cpu) = (direct / rounds, flotilla / rounds, cpu / rounds as f64);
    let ratio = flotilla.as_secs_f64() / direct.as_secs_f64();
    let of = if rounds > 1 {
        format!("mean of {rounds}, ")
    } else {
        String::new()
    };
    rows.push(Row {
        backend: label,
        id: "P10 converge on kube-apiserver",
        figure: format!(
            "{:.2} s ({of}{resources} + {} pods; {:.0} µs CPU/resource)",
            flotilla.as_secs_f64(),
            scale.deployments * scale.clusters,
            cpu / resources as f64 * 1e6
        ),
        baseline: format!("{:.2} s direct SSA", direct.as_secs_f64()),
        ratio: format!("{ratio:.2}x"),
        target: format!("<= {TARGET}x"),
        pass: ratio <= TARGET,
        gating: !scale.quick,
        unit: None,
    });
    Ok(())
}
