//! The cost of parsing caller input, per KB, through CreateApp on the running server
//! (issue 56): the YAML shapes whose cost grew with the square of their nesting (1 MiB
//! of `[` did not come back in ten minutes in a debug build) against a valid, flat
//! manifest of the same size, at 256 KiB and 1 MiB. The check is the growth: a shape's
//! cost per KB at 1 MiB within 1.5x of its cost per KB at 256 KiB (linear), for every
//! shape, refused or taken.

use std::time::Instant;

use anyhow::{Result, bail};
use flotilla_client::Client;
use flotilla_client::v1::*;

use super::Row;

/// The largest manifests text the API takes.
const MAX: usize = 1024 * 1024;

/// A manifest text of about `bytes` in `shape`, and whether the API takes it.
fn text(shape: &str, bytes: usize) -> (String, bool) {
    match shape {
        // A ConfigMap of many keys: the baseline.
        "flat" => {
            let mut text =
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: flat\ndata:\n".to_string();
            let mut i = 0;
            while text.len() + 40 < bytes {
                text.push_str(&format!("  key-{i:07}: value-{i:07}\n"));
                i += 1;
            }
            (text, true)
        }
        // As deep as the limit allows, over and over: taken.
        "deep-at-limit" => {
            let item = format!("{}{}", "[".repeat(29), "]".repeat(29));
            let head =
                "apiVersion: example.com/v1\nkind: Widget\nmetadata: {name: w}\nspec:\n  x: [";
            let count = (bytes - head.len() - 2) / (item.len() + 1);
            let items = vec![item; count].join(",");
            (format!("{head}{items}]\n"), true)
        }
        "nested-sequences" => (format!("a: {}", "[".repeat(bytes - 3)), false),
        "nested-mappings" => ("{".repeat(bytes), false),
        "nested-pairs" => (format!("a: {}", "{a: ".repeat((bytes - 3) / 4)), false),
        _ => unreachable!("a shape of SHAPES"),
    }
}

const SHAPES: [&str; 5] = [
    "flat",
    "deep-at-limit",
    "nested-sequences",
    "nested-mappings",
    "nested-pairs",
];

/// The fastest of three CreateApp calls of `manifests`, in microseconds per KB.
async fn per_kb(
    client: &mut Client,
    parent: &str,
    id: &mut usize,
    manifests: &str,
    taken: bool,
) -> Result<f64> {
    let mut best = f64::MAX;
    for _ in 0..3 {
        *id += 1;
        let started = Instant::now();
        let outcome = client
            .lifecycle
            .create_app(CreateAppRequest {
                parent: parent.to_string(),
                app_id: format!("parse-{id}"),
                app: Some(App {
                    manifests: manifests.to_string(),
                    ..Default::default()
                }),
                ..Default::default()
            })
            .await;
        let took = started.elapsed().as_secs_f64() * 1e6;
        match (outcome, taken) {
            (Ok(_), true) => {}
            (Err(status), false) if status.code() == tonic::Code::InvalidArgument => {}
            (outcome, _) => bail!(
                "CreateApp of {} bytes: unexpected {outcome:?}",
                manifests.len()
            ),
        }
        best = best.min(took / (manifests.len() as f64 / 1024.0));
    }
    Ok(best)
}

pub async fn run(client: &mut Client, label: &'static str, rows: &mut Vec<Row>) -> Result<()> {
    let lc = &mut client.lifecycle;
    lc.create_project(CreateProjectRequest {
        project_id: "parse".into(),
        ..Default::default()
    })
    .await?;
    lc.create_composite_app(CreateCompositeAppRequest {
        parent: "projects/parse".into(),
        composite_app_id: "inputs".into(),
        version_id: "v1".into(),
        ..Default::default()
    })
    .await?;
    let parent = "projects/parse/compositeApps/inputs/versions/v1";
    let mut id = 0;
    let (mut worst, mut flat, mut figures) = ((0.0f64, ""), 0.0, Vec::new());
    let mut growth_worst: (f64, &str) = (0.0, "");
    for shape in SHAPES {
        let (small, taken) = text(shape, MAX / 4);
        let (large, _) = text(shape, MAX);
        let at_small = per_kb(client, parent, &mut id, &small, taken).await?;
        let at_large = per_kb(client, parent, &mut id, &large, taken).await?;
        let growth = at_large / at_small;
        figures.push(format!("{shape} {at_large:.1}"));
        if shape == "flat" {
            flat = at_large;
        }
        if at_large > worst.0 {
            worst = (at_large, shape);
        }
        if growth > growth_worst.0 {
            growth_worst = (growth, shape);
        }
    }
    eprintln!("[{label}] parse, us/KB at 1 MiB: {}", figures.join(", "));
    rows.push(Row {
        backend: label,
        id: "parse worst case per KB",
        figure: format!("{:.1} us/KB ({})", worst.0, worst.1),
        baseline: format!("{flat:.1} us/KB flat"),
        ratio: format!("{:.2}x growth ({})", growth_worst.0, growth_worst.1),
        target: "<= 1.5x per KB, 256 KiB -> 1 MiB".into(),
        pass: growth_worst.0 <= 1.5,
        gating: true,
        unit: None,
    });
    Ok(())
}
