//! The scale of a run: the full fleet, the CI's quick one, and `--scale N`'s multiples
//! of the full one (issue 61), with the targets that follow the scale, and the
//! `--scale` driver that runs each N and prints the cost table between them.

use std::time::{Duration, Instant};

use anyhow::Result;
use flotilla_tests::Backend;

use super::etcd::{Etcd, etcd_load, etcd_settle};
use super::{Row, p7, p8, run_backend, table};

/// The scale of one run.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Scale {
    pub(crate) apps: usize,
    pub(crate) clusters: usize,
    pub(crate) docs: usize,
    pub(crate) subscribers: usize,
    /// Target change rate of P5 (changes per second).
    pub(crate) rate: usize,
    /// How long P5 drives changes, per round.
    pub(crate) p5_seconds: u64,
    /// Rounds of P5: Flotilla's and etcd's runs alternate, so both meet the machine
    /// in the same state (its speed drifts by a third within an hour here), and the
    /// p99s are over every round's latencies, so one stall in a round of fifty
    /// bursts does not decide the comparison alone.
    pub(crate) p5_rounds: usize,
    /// Samples of P1.
    pub(crate) samples: usize,
    /// Reads of P2 on each side (Flotilla's and etcd's alternate; medians compared).
    pub(crate) p2_samples: usize,
    /// The CI scale: targets set for the full scale are shown as not applicable.
    pub(crate) quick: bool,
    /// How many times the full fleet this is (`--scale N`; 1 for the full and quick
    /// runs): its targets are issue 61's at N = 10, today's at N = 1.
    pub(crate) n: usize,
    /// Clusters per `flotilla-agent --sim-fleet` process; 0: a process per cluster.
    pub(crate) fleet_size: usize,
}

pub(crate) const FULL: Scale = Scale {
    apps: 100,
    clusters: 100,
    docs: 10,
    subscribers: 1000,
    rate: 5000,
    p5_seconds: 10,
    p5_rounds: 3,
    samples: 500,
    p2_samples: 7,
    quick: false,
    n: 1,
    fleet_size: 0,
};

pub(crate) const QUICK: Scale = Scale {
    apps: 10,
    clusters: 10,
    docs: 10,
    subscribers: 100,
    rate: 500,
    p5_seconds: 3,
    p5_rounds: 1,
    samples: 200,
    p2_samples: 3,
    quick: true,
    n: 1,
    fleet_size: 0,
};

impl Scale {
    /// `--scale n`: the full fleet's clusters and subscribers times `n` (apps, documents
    /// and P5's change rate as at full scale), the agents in `--sim-fleet` processes of
    /// 100 clusters each, on every scale alike so that their figures compare.
    pub(crate) fn times(n: usize) -> Scale {
        Scale {
            clusters: FULL.clusters * n,
            subscribers: FULL.subscribers * n,
            n,
            fleet_size: 100,
            ..FULL
        }
    }

    pub(crate) fn total(&self) -> usize {
        self.apps * self.clusters * self.docs
    }

    /// The fleet's shape, for a table's title.
    pub(crate) fn shape(&self) -> String {
        format!(
            "{} apps x {} clusters x {} docs = {} resources; {} subscribers",
            self.apps,
            self.clusters,
            self.docs,
            self.total(),
            self.subscribers
        )
    }

    /// A time target that is `at_1` seconds at N = 1 and `at_10` at N = 10 (see
    /// [`at_scale`]); at the quick scale, `at_1` scaled down with the work.
    pub(crate) fn time_target(&self, at_1: f64, at_10: f64) -> f64 {
        if self.quick {
            at_1 * time_scale(self.total())
        } else {
            at_scale(self.n as f64, at_1, at_10)
        }
    }

    /// How long a wait of the bench (for convergence, a terminate) may last before the
    /// run fails: five minutes per N.
    pub(crate) fn patience(&self) -> Duration {
        Duration::from_secs(300 * self.n as u64)
    }
}

/// A target set at N = 1 (`at_1`) and at N = 10 (`at_10`, issue 61's table) for scale
/// `n`: linear in N between the two and beyond.
pub(crate) fn at_scale(n: f64, at_1: f64, at_10: f64) -> f64 {
    at_1 + (at_10 - at_1) * (n - 1.0) / 9.0
}

const FULL_TOTAL: f64 = 100_000.0;

/// How time targets scale down with the work: linearly, but never below a tenth (a
/// scaled-down run still pays fixed costs: RPCs, agent round trips, rsync passes).
fn time_scale(total: usize) -> f64 {
    (total as f64 / FULL_TOTAL).max(0.1)
}

/// `--scale`: P1–P9 at each N in turn on the chosen backends, each N with an etcd of
/// its own loaded at its scale (the baselines are measured at the same scale); prints
/// each N's table, then the cost table. Exits non-zero when a check fails.
pub(crate) async fn run_scales(ns: &[u64], backends: &[(Backend, &'static str)]) -> Result<()> {
    let mut runs = Vec::new();
    for &n in ns {
        let n = n as usize;
        let scale = Scale::times(n);
        eprintln!("flotilla-bench --scale {n}: {scale:?}");
        let etcd = Etcd::start().await?;
        let loading = Instant::now();
        let context = etcd_load(&etcd, scale).await?;
        eprintln!(
            "loaded etcd with {} resources in {:.1} s",
            scale.total(),
            loading.elapsed().as_secs_f64()
        );
        etcd_settle(&etcd).await;
        let mut rows = Vec::new();
        for &(backend, label) in backends {
            let checks = async {
                run_backend(backend, label, scale, &etcd, &context, &mut rows).await?;
                p7::run(backend, label, p7::P7Scale::times(n), &mut rows).await?;
                p8::run(
                    backend,
                    label,
                    p8::P8Scale::times(n),
                    false,
                    &etcd,
                    &mut rows,
                )
                .await
            };
            if let Err(error) = checks.await {
                rows.push(Row::error(label, error));
            }
        }
        table::print(
            &format!("flotilla-bench --scale {n} ({})", scale.shape()),
            &rows,
        );
        runs.push((n, rows));
    }
    let costs = table::costs(&runs);
    if !costs.is_empty() {
        table::print("cost per unit of work, by scale", &costs);
    }
    if runs
        .iter()
        .flat_map(|(_, rows)| rows)
        .chain(&costs)
        .any(|r| !r.pass && r.gating)
    {
        std::process::exit(1);
    }
    Ok(())
}
