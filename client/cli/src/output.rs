//! Output formats: tables a user scans, the proto's canonical JSON and YAML, names.

use std::io::{IsTerminal, Write};

use clap::ValueEnum;
use serde_json::Value;

/// `-o`: how results are printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum, Default)]
pub enum Format {
    /// Columns a user scans: name, state, readiness, age.
    #[default]
    Table,
    /// The table with more columns (uid, etag, description, labels).
    Wide,
    /// The proto's canonical JSON (a list prints as a JSON array; watches as NDJSON).
    Json,
    /// The canonical JSON as YAML (documents separated by `---`).
    Yaml,
    /// Resource names only, one per line.
    Name,
}

/// Whether to colour: stdout is a terminal and NO_COLOR is unset.
pub fn colour() -> bool {
    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
}

/// Wraps `text` in an ANSI colour when colouring.
pub fn paint(text: &str, code: &str) -> String {
    if colour() {
        format!("\x1b[{code}m{text}\x1b[0m")
    } else {
        text.to_string()
    }
}

/// Prints resources (canonical JSON values) in `format`.
pub fn print(format: Format, items: &[Value], single: bool) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match format {
        Format::Json => {
            let value = if single && items.len() == 1 {
                items[0].clone()
            } else {
                Value::Array(items.to_vec())
            };
            writeln!(out, "{}", serde_json::to_string_pretty(&value)?)?;
        }
        Format::Yaml => {
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    writeln!(out, "---")?;
                }
                write!(out, "{}", serde_yaml_ng::to_string(item)?)?;
            }
        }
        Format::Name => {
            for item in items {
                writeln!(out, "{}", item["name"].as_str().unwrap_or_default())?;
            }
        }
        Format::Table | Format::Wide => {
            write!(out, "{}", table(items, format == Format::Wide))?;
        }
    }
    Ok(())
}

/// The short form of an enum value: `DEPLOYMENT_INTENT_GROUP_STATE_APPROVED` → `APPROVED`.
pub fn short_enum(value: &str, prefix: &str) -> String {
    value.strip_prefix(prefix).unwrap_or(value).to_string()
}

/// A resource state without its enum's prefix: every state enum's values read
/// `…_STATE_{STATE}` (`DEPLOYMENT_INTENT_GROUP_STATE_APPROVED` → `APPROVED`).
pub fn short_state(value: &str) -> &str {
    value.rsplit_once("_STATE_").map_or(value, |(_, s)| s)
}

/// The status of the `Ready` condition, if the resource has conditions.
fn ready(item: &Value) -> Option<String> {
    let conditions = item.get("conditions")?.as_array()?;
    let ready = conditions.iter().find(|c| c["type"] == "Ready")?;
    Some(short_enum(
        ready["status"]
            .as_str()
            .unwrap_or("CONDITION_STATUS_UNKNOWN"),
        "CONDITION_STATUS_",
    ))
}

/// How long ago an RFC 3339 time was, as kubectl prints it (`45s`, `12m`, `3h`, `2d`).
pub fn age(time: &str) -> String {
    let Some(seconds) = parse_rfc3339(time) else {
        return "-".into();
    };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs() as i64)
        .unwrap_or(0);
    let s = (now - seconds).max(0);
    match s {
        0..60 => format!("{s}s"),
        60..3600 => format!("{}m", s / 60),
        3600..86400 => format!("{}h", s / 3600),
        _ => format!("{}d", s / 86400),
    }
}

/// Seconds since the epoch of `YYYY-MM-DDTHH:MM:SS[.frac]Z`.
fn parse_rfc3339(text: &str) -> Option<i64> {
    let date = text.get(0..10)?;
    let clock = text.get(11..19)?;
    let mut d = date.split('-').map(|p| p.parse::<i64>().ok());
    let (y, m, day) = (d.next()??, d.next()??, d.next()??);
    let mut c = clock.split(':').map(|p| p.parse::<i64>().ok());
    let (h, min, s) = (c.next()??, c.next()??, c.next()??);
    // Days from the civil date (Howard Hinnant's algorithm).
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    Some(days * 86_400 + h * 3600 + min * 60 + s)
}

/// The last id of a resource name (what a table's NAME column shows).
fn short_name(name: &str) -> String {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        // composite apps: `web/v1`
        [.., "compositeApps", app, "versions", version] => format!("{app}/{version}"),
        [.., last] => last.to_string(),
        [] => String::new(),
    }
}

fn table(items: &[Value], wide: bool) -> String {
    let has = |key: &str| items.iter().any(|i| i.get(key).is_some());
    let mut header = vec!["NAME"];
    let action = has("actionName");
    if action {
        header.push("ACTION");
    }
    // An action's state is in its status.
    let state = has("state") || items.iter().any(|i| i.pointer("/status/state").is_some());
    let connectivity = has("connectivity");
    let network = has("networkIntentsState");
    let ready_column = items.iter().any(|i| ready(i).is_some());
    if state {
        header.push("STATE");
    }
    if connectivity {
        header.push("CONNECTIVITY");
    }
    if network {
        header.push("NETWORK");
    }
    if ready_column {
        header.push("READY");
    }
    let counts = has("resources");
    if counts {
        header.push("RESOURCES");
    }
    header.push("AGE");
    if wide {
        header.extend(["PARENT", "UID", "ETAG", "DESCRIPTION"]);
    }
    let mut rows = vec![header.iter().map(|h| h.to_string()).collect::<Vec<_>>()];
    for item in items {
        let name = item["name"].as_str().unwrap_or_default();
        let mut row = vec![short_name(name)];
        if action {
            row.push(item["actionName"].as_str().unwrap_or("-").to_string());
        }
        let text = |key: &str, prefix: &str| {
            item.get(key)
                .and_then(Value::as_str)
                .map(|v| short_enum(v, prefix))
                .unwrap_or_else(|| "-".into())
        };
        if state {
            let value = item
                .get("state")
                .or_else(|| item.pointer("/status/state"))
                .and_then(Value::as_str)
                .unwrap_or("-");
            row.push(short_state(value).to_string());
        }
        if connectivity {
            row.push(text("connectivity", "CONNECTIVITY_"));
        }
        if network {
            row.push(text("networkIntentsState", "NETWORK_INTENTS_STATE_"));
        }
        if ready_column {
            row.push(ready(item).unwrap_or_else(|| "-".into()));
        }
        if counts {
            row.push(item["resources"].as_str().unwrap_or("-").to_string());
        }
        row.push(
            item["createTime"]
                .as_str()
                .map(age)
                .unwrap_or_else(|| "-".into()),
        );
        if wide {
            let parent = name
                .rsplit_once('/')
                .and_then(|(p, _)| p.rsplit_once('/'))
                .map(|(p, _)| p)
                .unwrap_or("-");
            row.push(if parent.is_empty() {
                "-".into()
            } else {
                parent.into()
            });
            row.push(item["uid"].as_str().unwrap_or("-").into());
            row.push(item["etag"].as_str().unwrap_or("-").into());
            row.push(item["description"].as_str().unwrap_or("").into());
        }
        rows.push(row);
    }
    columns(&rows)
}

/// Left-aligned columns separated by three spaces, as kubectl prints them.
pub fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|c| {
            rows.iter()
                .filter_map(|r| r.get(c))
                .map(|s| s.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (c, cell) in row.iter().enumerate() {
            if c + 1 == row.len() {
                line.push_str(cell);
            } else {
                line.push_str(&format!("{cell:<width$}   ", width = widths[c]));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_times_parse() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0));
        assert_eq!(parse_rfc3339("2026-11-24T23:00:00.123Z"), Some(1795561200));
        assert_eq!(parse_rfc3339("garbage"), None);
    }

    #[test]
    fn tables_show_short_names_and_states() {
        let items = vec![serde_json::json!({
            "name": "projects/p/compositeApps/web/versions/v1/deploymentIntentGroups/prod",
            "state": "DEPLOYMENT_INTENT_GROUP_STATE_APPROVED",
            "conditions": [{"type": "Ready", "status": "CONDITION_STATUS_FALSE"}],
        })];
        let text = table(&items, false);
        assert_eq!(
            text,
            "NAME   STATE      READY   AGE\nprod   APPROVED   FALSE   -\n"
        );
    }
}
