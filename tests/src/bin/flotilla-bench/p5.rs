//! P5: watch latency with many subscribers, Flotilla's WatchStatus against etcd's own
//! watch with the same subscriber count, change rate and bursts.

use std::collections::BTreeMap;

use tokio_util::sync::CancellationToken;

use super::*;

/// One P5 subscriber: counts the resource events after SYNCED and their delivery
/// latencies (receive time - the event's commit time), until told to stop (the server
/// keeps its default heartbeat: a stream that idles is not polled for the stop).
pub(super) async fn p5_subscriber(
    mut client: Client,
    cluster: Option<String>,
    ready: tokio::sync::oneshot::Sender<()>,
    stop: CancellationToken,
) -> Result<(BTreeMap<String, u64>, Vec<f64>, Vec<(i64, f64, f64)>)> {
    let mut stream = client
        .status
        .watch_status(WatchStatusRequest {
            name: DIG.into(),
            output: StatusOutput::All as i32,
            clusters: cluster.into_iter().collect(),
            ..Default::default()
        })
        .await?
        .into_inner();
    let mut ready = Some(ready);
    let mut counts: BTreeMap<String, u64> = BTreeMap::new();
    let mut latencies = Vec::new();
    // Per change (the events of one transaction share their commit time): the
    // latency of its first and of its last event, to tell the wait for the first
    // from the time the rest take to stream.
    let mut changes: Vec<(i64, f64, f64)> = Vec::new();
    loop {
        // What arrived before the stop is counted first.
        let message = tokio::select! {
            biased;
            message = stream.message() => message?,
            () = stop.cancelled() => break,
        };
        let Some(message) = message else { break };
        // Every event of a message arrived when the message did.
        let received = micros_now();
        for event in message.events {
            let kind = event.r#type;
            if kind == WatchEventType::Synced as i32 {
                if let Some(r) = ready.take() {
                    let _ = r.send(());
                }
            } else if ready.is_none() && kind == WatchEventType::ResourceChanged as i32 {
                let time = event.time.unwrap_or_default();
                let sent = time.seconds * 1_000_000 + i64::from(time.nanos) / 1000;
                let latency = (received - sent) as f64 / 1000.0;
                latencies.push(latency);
                match changes.last_mut() {
                    Some((time, _, last)) if *time == sent => *last = latency,
                    _ => changes.push((sent, latency, latency)),
                }
                *counts.entry(event.cluster).or_default() += 1;
            }
        }
    }
    Ok((counts, latencies, changes))
}

/// P5: `subscribers` watches of the group, each filtered to one cluster, plus one
/// unfiltered reference. Changes are driven through the SimulatorService: a cluster's
/// agent is cut (its resources go Retrying) and let back (they go Applied again),
/// paced to `rate` changes per second. Returns (every delivery latency in ms,
/// achieved changes/s, events lost: what a subscriber missed of what the reference
/// saw for its cluster, and the CPU each process family spent while the changes were
/// driven).
pub(super) async fn p5_flotilla(target: &Target<'_>, scale: Scale) -> Result<P5Round> {
    let per_cluster = scale.apps * scale.docs;
    let stop = CancellationToken::new();
    let mut channels = Vec::new();
    for _ in 0..(scale.subscribers / 100).max(1) {
        channels.push(target.client().await?);
    }
    let mut tasks = Vec::new();
    let mut synced = Vec::new();
    for s in 0..=scale.subscribers {
        let cluster = (s < scale.subscribers).then(|| format!("c{}", s % scale.clusters));
        let (ready, ready_rx) = tokio::sync::oneshot::channel();
        synced.push(ready_rx);
        tasks.push(tokio::spawn(p5_subscriber(
            channels[s % channels.len()].clone(),
            cluster,
            ready,
            stop.clone(),
        )));
    }
    let syncing = Instant::now();
    for ready in synced {
        ready.await.context("a subscriber did not sync")?;
    }
    eprintln!(
        "  {} subscribers synced in {:.2} s; driving changes",
        scale.subscribers + 1,
        syncing.elapsed().as_secs_f64()
    );
    let mut client = target.client().await?;
    let cpu = cpu_snapshot();
    // A flip (cut or let back) of a cluster changes `per_cluster` resources.
    let flips_per_second = (scale.rate as f64 / per_cluster as f64).max(0.5);
    let interval = Duration::from_secs_f64(1.0 / flips_per_second);
    let started = Instant::now();
    let mut flips = 0u64;
    let mut next_cluster = 0;
    let mut down: Vec<usize> = Vec::new();
    let name = |c: usize| format!("clusterProviders/edge/clusters/c{c}");
    while started.elapsed() < Duration::from_secs(scale.p5_seconds) {
        let tick = Instant::now();
        if down.len() >= 2 {
            let c = down.remove(0);
            client
                .simulator
                .reconnect_cluster(ReconnectClusterRequest { cluster: name(c) })
                .await?;
        } else {
            let c = next_cluster % scale.clusters;
            next_cluster += 1;
            client
                .simulator
                .disconnect_cluster(DisconnectClusterRequest { cluster: name(c) })
                .await?;
            down.push(c);
        }
        flips += 1;
        if let Some(rest) = interval.checked_sub(tick.elapsed()) {
            tokio::time::sleep(rest).await;
        }
    }
    let driven = started.elapsed().as_secs_f64();
    let cpu = cpu_since(&cpu);
    eprintln!("  CPU while driving {driven:.1} s: {}", cpu_report(&cpu));
    for c in down {
        client
            .simulator
            .reconnect_cluster(ReconnectClusterRequest { cluster: name(c) })
            .await?;
    }
    wait_converged(&mut client, scale).await?;
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.cancel();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await??);
    }
    let (reference, _, _) = results.pop().expect("the reference subscriber");
    let mut latencies = Vec::new();
    let (mut firsts, mut lasts) = (Vec::new(), Vec::new());
    let mut by_change: BTreeMap<i64, (usize, f64, f64, f64)> = BTreeMap::new();
    let mut lost = 0;
    for (s, (counts, mine, changes)) in results.into_iter().enumerate() {
        let cluster = name(s % scale.clusters);
        let seen = reference.get(&cluster).copied().unwrap_or(0);
        lost += seen.saturating_sub(counts.get(&cluster).copied().unwrap_or(0));
        latencies.extend(mine);
        for c in &changes {
            let e = by_change
                .entry(c.0)
                .or_insert((0usize, f64::MAX, 0f64, 0f64));
            e.0 += 1;
            e.1 = e.1.min(c.1);
            e.2 = e.2.max(c.1);
            e.3 = e.3.max(c.2);
        }
        firsts.extend(changes.iter().map(|c| c.1));
        lasts.extend(changes.iter().map(|c| c.2));
    }
    if std::env::var("P5CHANGES").is_ok() {
        let t0 = by_change.keys().next().copied().unwrap_or(0);
        for (t, (n, min_first, max_first, max_last)) in &by_change {
            eprintln!(
                "    change +{:.3} s: {n} subs, first {min_first:.1}..{max_first:.1} ms, last <= {max_last:.1} ms",
                (t - t0) as f64 / 1e6
            );
        }
    }
    eprintln!(
        "  {} changes; first event of a change p50 {:.1} ms p99 {:.1} ms, last event p50 {:.1} ms p99 {:.1} ms",
        firsts.len(),
        percentile(&mut firsts, 0.5),
        percentile(&mut firsts, 0.99),
        percentile(&mut lasts, 0.5),
        percentile(&mut lasts, 0.99)
    );
    let changes: u64 = reference.values().sum();
    let _ = flips;
    eprintln!(
        "  delivery latency: p1 {:.1} ms, p50 {:.1} ms, p90 {:.1} ms, max {:.1} ms",
        percentile(&mut latencies, 0.01),
        percentile(&mut latencies, 0.5),
        percentile(&mut latencies, 0.9),
        percentile(&mut latencies, 1.0)
    );
    eprintln!(
        "  this round's p99 {:.1} ms",
        percentile(&mut latencies, 0.99)
    );
    Ok(P5Round {
        latencies,
        rate: changes as f64 / driven,
        lost,
        cpu,
    })
}

/// What a round of P5 measured.
pub(super) struct P5Round {
    /// Every delivery's latency, ms.
    pub latencies: Vec<f64>,
    /// Changes per second achieved.
    pub rate: f64,
    /// Events a subscriber missed.
    pub lost: u64,
    /// CPU seconds per process family while the changes were driven ([`cpu_since`]).
    pub cpu: Vec<f64>,
}

/// Settles PostgreSQL after setting up and converging a fleet, before P5 or P8
/// measures latency, as database benchmarks do between their load and run phases
/// (pgbench vacuums and analyzes first):
/// - ANALYZE of the server's database: the statistics of what the setup grew, which
///   the server's statistics task would otherwise take within its 5 s, inside the
///   measurement;
/// - CHECKPOINT: otherwise the checkpoint of that bulk load comes when PostgreSQL's
///   timer or its WAL size says, and its writeback stalls the WAL flush of whichever
///   side's round (Flotilla's commits, etcd's fsyncs; same disk) it lands on, by
///   100 ms and more. It also starts checkpoint_timeout and max_wal_size's count
///   afresh, so none starts during the measurement.
pub(super) async fn settle_postgres(before: &str, database_url: &str) {
    use sqlx::Connection;
    let started = Instant::now();
    let result = async {
        let mut conn = sqlx::PgConnection::connect(database_url).await?;
        sqlx::query("ANALYZE").execute(&mut conn).await?;
        let mut conn = sqlx::PgConnection::connect(&flotilla_tests::postgres_admin_url()).await?;
        sqlx::query("CHECKPOINT").execute(&mut conn).await
    }
    .await;
    match result {
        Ok(_) => eprintln!(
            "  ANALYZE and CHECKPOINT before {before}: {:.2} s",
            started.elapsed().as_secs_f64()
        ),
        // CHECKPOINT needs a superuser or pg_checkpoint; measure without it then.
        Err(error) => eprintln!(
            "  PostgreSQL not settled before {before} ({error}); an analysis or a checkpoint may fall in it"
        ),
    }
}

/// etcd's own watch under the same load: the same number of watchers on per-cluster
/// prefixes, the same change rate, in the same bursts (a cluster's keys at once), of
/// puts whose values carry their send time.
/// Returns (every delivery latency in ms, events delivered, events expected).
pub(super) async fn p5_etcd(
    etcd: &Etcd,
    scale: Scale,
    rate: f64,
    seconds: u64,
) -> Result<(Vec<f64>, u64, u64)> {
    let latencies = Arc::new(Mutex::new(Vec::<f64>::new()));
    let received = Arc::new(AtomicU64::new(0));
    // Watchers stop as Flotilla's subscribers do (a token, no polling wake-ups), so
    // neither side's figures carry the bench's own timers.
    let stop = CancellationToken::new();
    let mut clients = Vec::new();
    for _ in 0..(scale.subscribers / 100).max(1) {
        clients.push(etcd.client().await?);
    }
    let mut tasks = Vec::new();
    for s in 0..scale.subscribers {
        let mut client = clients[s % clients.len()].clone();
        let prefix = format!("/load/c{}/", s % scale.clusters);
        let (mut watcher, mut stream) = client
            .watch(prefix, Some(etcd_client::WatchOptions::new().with_prefix()))
            .await?;
        let latencies = latencies.clone();
        let received = received.clone();
        let stop = stop.clone();
        tasks.push(tokio::spawn(async move {
            let mut mine = Vec::new();
            loop {
                // What arrived before the stop is counted first.
                let response = tokio::select! {
                    biased;
                    message = stream.message() => match message {
                        Ok(Some(response)) => response,
                        _ => break,
                    },
                    () = stop.cancelled() => break,
                };
                // As in Flotilla's subscriber: events arrive with their response.
                super::etcd::stamp_latencies(&response, &mut mine, &received);
            }
            let _ = watcher.cancel().await;
            latencies.lock().await.extend(mine);
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    let cpu = cpu_snapshot();
    // The same shape of load as Flotilla's flips: every change of a cluster's
    // `per_cluster` keys at once, paced to `rate`. etcd caps a transaction at 128
    // operations, so a flip is that many transactions sent together.
    let writer = etcd.client().await?;
    let per_cluster = scale.apps * scale.docs;
    let interval = Duration::from_secs_f64(per_cluster as f64 / rate);
    let started = Instant::now();
    let mut sent = 0u64;
    let mut flip = 0usize;
    while started.elapsed() < Duration::from_secs(seconds) {
        let tick = Instant::now();
        let cluster = flip % scale.clusters;
        flip += 1;
        let keys: Vec<usize> = (0..per_cluster).collect();
        let txns = keys.chunks(128).map(|chunk| {
            let ops: Vec<_> = chunk
                .iter()
                .map(|k| {
                    etcd_client::TxnOp::put(
                        format!("/load/c{cluster}/r{k}"),
                        micros_now().to_string(),
                        None,
                    )
                })
                .collect();
            let mut writer = writer.clone();
            async move { writer.txn(etcd_client::Txn::new().and_then(ops)).await }
        });
        futures::future::try_join_all(txns).await?;
        sent += per_cluster as u64;
        if let Some(rest) = interval.checked_sub(tick.elapsed()) {
            tokio::time::sleep(rest).await;
        }
    }
    eprintln!(
        "  etcd watch: CPU while driving {:.1} s: {}",
        started.elapsed().as_secs_f64(),
        cpu_report(&cpu_since(&cpu))
    );
    // Let the watchers drain, then stop them.
    tokio::time::sleep(Duration::from_secs(2)).await;
    stop.cancel();
    for task in tasks {
        task.await?;
    }
    let mut all = std::mem::take(&mut *latencies.lock().await);
    let per_change = (scale.subscribers / scale.clusters) as u64;
    eprintln!(
        "  etcd watch: this round's p99 {:.1} ms",
        percentile(&mut all, 0.99)
    );
    Ok((all, received.load(Ordering::Relaxed), sent * per_change))
}
