//! The etcd baselines: a local etcd, EMCO's AppContext layout loaded and read (P2),
//! and put → watch latency (P8).

use super::*;

pub(super) use flotilla_tests::etcd::Etcd;

/// Loads the instance into etcd the way EMCO's AppContext stores it: one key per
/// resource under `/context/{id}/app/{app}/cluster/{provider}+{cluster}/resource/`
/// holding the manifest, and its rsync status under `.../status/`.
pub(super) async fn etcd_load(etcd: &Etcd, scale: Scale) -> Result<String> {
    let mut client = etcd.client().await?;
    let context = "/context/6557391872918937610";
    let mut ops = Vec::new();
    for a in 0..scale.apps {
        for c in 0..scale.clusters {
            for d in 0..scale.docs {
                let base =
                    format!("{context}/app/a{a}/cluster/edge+c{c}/resource/a{a}-cm{d}+ConfigMap");
                let manifest = serde_json::json!({
                    "apiVersion": "v1", "kind": "ConfigMap",
                    "metadata": {"name": format!("a{a}-cm{d}"), "labels": {"emco/deployment-id": format!("{context}-a{a}")}},
                    "data": {"key": format!("value-{d}")},
                });
                ops.push(etcd_client::TxnOp::put(
                    format!("{base}/"),
                    manifest.to_string(),
                    None,
                ));
                ops.push(etcd_client::TxnOp::put(
                    format!("{base}/status/"),
                    r#"{"rsyncStatus":"Applied","clusterStatus":"Present","readiness":"Ready"}"#,
                    None,
                ));
                if ops.len() >= 128 {
                    client
                        .txn(etcd_client::Txn::new().and_then(std::mem::take(&mut ops)))
                        .await?;
                }
            }
        }
    }
    if !ops.is_empty() {
        client.txn(etcd_client::Txn::new().and_then(ops)).await?;
    }
    Ok(context.to_string())
}

/// Waits until etcd is idle after a load (at most two minutes): loading a million
/// resources leaves it compacting and snapshotting for minutes, on the cores the
/// checks after it are measured on. Prints how long it took.
pub(super) async fn etcd_settle(etcd: &Etcd) {
    let Some(pid) = etcd.pid() else { return };
    let started = Instant::now();
    let mut last = super::cpu::process_cpu_seconds(pid);
    while started.elapsed() < Duration::from_secs(120) {
        tokio::time::sleep(Duration::from_secs(1)).await;
        let now = super::cpu::process_cpu_seconds(pid);
        // Under a twentieth of a core over the last second: idle.
        if now - last < 0.05 {
            break;
        }
        last = now;
    }
    eprintln!(
        "  etcd settled after its load in {:.1} s",
        started.elapsed().as_secs_f64()
    );
}

/// Reads the instance from etcd with paged prefix reads and decodes every value.
pub(super) async fn etcd_read(etcd: &Etcd, context: &str) -> Result<usize> {
    let mut client = etcd.client().await?;
    let prefix = format!("{context}/");
    let end = format!("{context}0");
    let mut from = prefix.clone().into_bytes();
    let mut resources = 0;
    loop {
        let options = etcd_client::GetOptions::new()
            .with_range(end.clone())
            .with_limit(10_000);
        let response = client.get(from.clone(), Some(options)).await?;
        for kv in response.kvs() {
            let _value: serde_json::Value = serde_json::from_slice(kv.value())?;
            if kv.key().ends_with(b"/status/") {
                resources += 1;
            }
        }
        match response.kvs().last() {
            Some(last) if response.more() => {
                from = last.key().to_vec();
                from.push(0);
            }
            _ => return Ok(resources),
        }
    }
}

/// P8's baseline: `scale.actions()` puts, one per pod, spread over per-cluster
/// prefixes that each have a watcher, made by `scale.clients` concurrent clients at
/// `rate` puts per second in all; the latency of each is the watcher's receive time
/// minus the put's send time. Returns (p50, p99) in ms.
/// The latency (ms) of each event of a watch response, whose value is its put's
/// micros_now(): every event of a response arrived when the response did.
pub(super) fn stamp_latencies(
    response: &etcd_client::WatchResponse,
    latencies: &mut Vec<f64>,
    received: &AtomicU64,
) {
    let now = micros_now();
    for event in response.events() {
        if let Some(kv) = event.kv() {
            let sent: i64 = std::str::from_utf8(kv.value())
                .ok()
                .and_then(|v| v.parse().ok())
                .unwrap_or_default();
            latencies.push((now - sent) as f64 / 1000.0);
            received.fetch_add(1, Ordering::Relaxed);
        }
    }
}

pub(super) async fn etcd_put_watch(
    etcd: &Etcd,
    scale: p8::P8Scale,
    rate: f64,
) -> Result<(f64, f64)> {
    let total = scale.clusters * scale.pods;
    let latencies = Arc::new(Mutex::new(Vec::<f64>::new()));
    let received = Arc::new(AtomicU64::new(0));
    let watch_client = etcd.client().await?;
    let mut watchers = Vec::new();
    for c in 0..scale.clusters {
        let mut client = watch_client.clone();
        let (watcher, mut stream) = client
            .watch(
                format!("/actions/k{c}/"),
                Some(etcd_client::WatchOptions::new().with_prefix()),
            )
            .await?;
        let (latencies, received) = (latencies.clone(), received.clone());
        watchers.push((
            watcher,
            tokio::spawn(async move {
                let mut mine = Vec::new();
                while let Ok(Some(response)) = stream.message().await {
                    stamp_latencies(&response, &mut mine, &received);
                    if received.load(Ordering::Relaxed) as usize >= total {
                        break;
                    }
                }
                latencies.lock().await.extend(mine);
            }),
        ));
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let interval = Duration::from_secs_f64(scale.clients as f64 / rate.max(1.0));
    let mut writers = Vec::new();
    for _ in 0..scale.clients {
        let mut client = etcd.client().await?;
        let next = next.clone();
        writers.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    return Ok::<_, anyhow::Error>(());
                }
                let tick = Instant::now();
                let (cluster, pod) = (i % scale.clusters, i / scale.clusters);
                client
                    .put(
                        format!("/actions/k{cluster}/vm-{pod}"),
                        micros_now().to_string(),
                        None,
                    )
                    .await?;
                if let Some(rest) = interval.checked_sub(tick.elapsed()) {
                    tokio::time::sleep(rest).await;
                }
            }
        }));
    }
    for writer in writers {
        writer.await??;
    }
    let deadline = Instant::now() + Duration::from_secs(30);
    while (received.load(Ordering::Relaxed) as usize) < total && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for (mut watcher, task) in watchers {
        let _ = watcher.cancel().await;
        let _ = tokio::time::timeout(Duration::from_secs(5), task).await;
    }
    let mut all = std::mem::take(&mut *latencies.lock().await);
    if all.len() < total {
        bail!("etcd delivered {} of {total} puts", all.len());
    }
    Ok((
        percentile(&mut all.clone(), 0.5),
        percentile(&mut all, 0.99),
    ))
}
