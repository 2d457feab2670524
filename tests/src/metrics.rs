//! Reading a server's Prometheus endpoint (`--metrics-listen`).

use std::io::{Read, Write};
use std::net::TcpStream;

/// GET /metrics over plain HTTP/1.1; checks the status and the content type.
pub fn scrape(address: &str) -> String {
    let mut stream = TcpStream::connect(address).expect("connect to the metrics endpoint");
    write!(
        stream,
        "GET /metrics HTTP/1.1\r\nHost: {address}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    stream.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    assert!(head.starts_with("HTTP/1.1 200"), "{head}");
    assert!(
        head.to_ascii_lowercase()
            .contains("content-type: text/plain; version=0.0.4"),
        "{head}"
    );
    body.to_string()
}

/// The sum of the series `name` whose labels include `labels` (0 if there is none).
pub fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .filter_map(|line| line.rsplit_once(' '))
        .filter(|(series, _)| {
            let (series_name, rest) = series.split_once('{').unwrap_or((series, ""));
            series_name == name
                && labels
                    .iter()
                    .all(|(k, v)| rest.contains(&format!("{k}=\"{v}\"")))
        })
        .map(|(_, v)| v.parse::<f64>().expect("a number"))
        .sum()
}

/// rsync's finished operations of one kind ("apply" or "delete") that succeeded.
pub fn rsync_succeeded(address: &str, operation: &str) -> f64 {
    value(
        &scrape(address),
        "flotilla_rsync_operations_total",
        &[("operation", operation), ("outcome", "succeeded")],
    )
}
