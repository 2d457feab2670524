//! The bench's output: a table of rows (figure, baseline, ratio, target, result), and
//! for a run of several scales (`--scale 1,10`) the cost table that compares each
//! figure's cost per unit of work between them.

use std::collections::BTreeMap;

use super::Row;

/// Prints `rows` under `title` as a Markdown table.
pub fn print(title: &str, rows: &[Row]) {
    let header = [
        "backend", "check", "figure", "baseline", "ratio", "target", "result",
    ];
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            [
                r.backend.to_string(),
                r.id.to_string(),
                r.figure.clone(),
                r.baseline.clone(),
                r.ratio.clone(),
                r.target.clone(),
                match (r.pass, r.gating) {
                    (true, _) => "pass",
                    (false, true) => "FAIL",
                    // A target set for the full scale, which a --quick run is too
                    // small to measure against: not a failure, not a pass.
                    (false, false) => "n/a at --quick scale",
                }
                .to_string(),
            ]
        })
        .collect();
    let mut widths = BTreeMap::new();
    for (i, h) in header.iter().enumerate() {
        let w = cells
            .iter()
            .map(|c| c[i].len())
            .max()
            .unwrap_or(0)
            .max(h.len());
        widths.insert(i, w);
    }
    let line = |c: &[String]| {
        let parts: Vec<String> = c
            .iter()
            .enumerate()
            .map(|(i, v)| format!("{v:<w$}", w = widths[&i]))
            .collect();
        format!("| {} |", parts.join(" | "))
    };
    println!("\n{title}");
    println!("{}", line(&header.map(String::from)));
    println!(
        "|{}|",
        widths
            .values()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("|")
    );
    for c in &cells {
        println!("{}", line(c));
    }
}

/// How much more a unit of work may cost at a larger scale than at the smallest
/// (issue 61: no superlinear growth).
const GROWTH: f64 = 1.5;

/// The cost table of a run of several scales (`runs`: each scale's N and rows, in the
/// order run): for every row with a cost per unit at the smallest N and at a larger
/// one, the two costs and their ratio, which must stay within [`GROWTH`].
pub fn costs(runs: &[(usize, Vec<Row>)]) -> Vec<Row> {
    let Some((base_n, base)) = runs.iter().min_by_key(|(n, _)| *n) else {
        return Vec::new();
    };
    let mut rows = Vec::new();
    for (n, run) in runs.iter().filter(|(n, _)| n != base_n) {
        for row in run {
            let Some(unit) = row.unit else { continue };
            let Some(was) = base
                .iter()
                .find(|b| b.backend == row.backend && b.id == row.id)
                .and_then(|b| b.unit)
            else {
                continue;
            };
            let ratio = unit.cost / was.cost;
            rows.push(Row {
                backend: row.backend,
                id: row.id,
                figure: format!(
                    "{} -> {} {}",
                    significant(was.cost),
                    significant(unit.cost),
                    unit.of
                ),
                baseline: format!("N = {base_n} -> N = {n}"),
                ratio: format!("{ratio:.2}x"),
                target: format!("<= {GROWTH}x"),
                pass: ratio <= GROWTH,
                gating: true,
                unit: None,
            });
        }
    }
    rows
}

/// `x` with three significant digits (costs run from fractions of a microsecond to
/// thousands).
fn significant(x: f64) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let digits = (2 - x.abs().log10().floor() as i32).max(0) as usize;
    format!("{x:.digits$}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Unit;

    fn row(backend: &'static str, id: &'static str, cost: Option<f64>) -> Row {
        Row {
            backend,
            id,
            figure: String::new(),
            baseline: String::new(),
            ratio: String::new(),
            target: String::new(),
            pass: true,
            gating: true,
            unit: cost.and_then(|cost| Unit::per(cost, "us per resource")),
        }
    }

    #[test]
    fn the_cost_table_compares_each_unit_cost_with_the_smallest_scale() {
        let runs = vec![
            (
                1,
                vec![
                    row("sqlite", "P3 instantiate", Some(10.0)),
                    row("sqlite", "P4 converge", Some(100.0)),
                    row("postgres", "P3 instantiate", Some(20.0)),
                    row("sqlite", "P5 events lost", None),
                ],
            ),
            (
                10,
                vec![
                    row("sqlite", "P3 instantiate", Some(14.0)),
                    row("sqlite", "P4 converge", Some(151.0)),
                    row("postgres", "P3 instantiate", Some(20.0)),
                    row("sqlite", "P5 events lost", None),
                    // Only at one scale: not compared.
                    row("sqlite", "P7 state sync", Some(1.0)),
                ],
            ),
        ];
        let costs = costs(&runs);
        let got: Vec<(&str, &str, &str, bool)> = costs
            .iter()
            .map(|r| (r.backend, r.id, r.ratio.as_str(), r.pass))
            .collect();
        assert_eq!(
            got,
            [
                ("sqlite", "P3 instantiate", "1.40x", true),
                ("sqlite", "P4 converge", "1.51x", false),
                ("postgres", "P3 instantiate", "1.00x", true),
            ]
        );
        assert_eq!(costs[0].figure, "10.0 -> 14.0 us per resource");
        assert_eq!(costs[0].baseline, "N = 1 -> N = 10");
        assert!(costs.iter().all(|r| r.gating));
    }

    #[test]
    fn costs_keep_three_significant_digits() {
        assert_eq!(significant(0.01234), "0.0123");
        assert_eq!(significant(1.234), "1.23");
        assert_eq!(significant(1234.4), "1234");
        assert_eq!(significant(0.0), "0");
    }
}
