//! Conversions between proto messages and domain types. Conversions *from* proto
//! validate: every problem becomes a field violation naming the request field, and
//! all violations of a request are reported together.

/// The message of a stored object `$o` (an `Object<Spec>`): the envelope every
/// lifecycle kind shares (name, uid, etag, create and update time) and the kind's own
/// `fields`. Every field of the message is named here or by the caller, so a field
/// added to a message cannot be left out unnoticed.
macro_rules! object_message {
    ($o:ident => $($message:ident)::+ {
        $($field:ident: $value:expr),* $(,)? $(; ..$spec:expr)?
    }) => {
        $($message)::+ {
            name: $o.name.to_string(),
            uid: $o.uid.to_string(),
            etag: etag($o.generation),
            create_time: timestamp($o.create_time),
            update_time: timestamp($o.update_time),
            $($field: $value,)*
            $(..$spec)?
        }
    };
}

mod action;
mod container_cluster;
mod network;
mod resources;
mod status;

use std::collections::BTreeMap;

pub use action::*;
pub use container_cluster::*;
use flotilla_api::v1 as pb;
pub use network::*;
use prost_types::{FieldMask, Timestamp, value::Kind as ValueKind};
pub use resources::*;
use serde_json::Value;
pub use status::*;

use crate::domain::manifest::{check_dns_label, check_dns_subdomain, check_kind};
use crate::domain::names::{CLUSTER, DEPLOYMENT_INTENT_GROUP, Kind, ResourceName, validate_id};
use crate::domain::nesting::{check_nesting, prune_nesting};
use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::resources::{Labels, ManifestPatch};
use crate::domain::status::RsyncStatus;
use crate::error::{Error, Result, Violations};

/// The longest accepted description, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;
/// The most labels a resource may carry.
pub const MAX_LABELS: usize = 64;
/// The most entries of a repeated request field of names or addresses: a placement's
/// cluster names, the app/cluster/resource filters of status and rendered-resource
/// queries, a subnet's excluded addresses. (A longer list of clusters is what a
/// cluster selector is for.)
pub const MAX_LIST: usize = 1000;
/// The most patches of an app profile or of an intent group's override, and the most
/// overrides and subnets of one resource.
pub const MAX_PATCHES: usize = 100;

/// Refuses app, cluster and resource filters (of status, watch and rendered-resource
/// requests) longer than `MAX_LIST`.
pub fn check_filters(apps: &[String], clusters: &[String], resources: &[String]) -> Result<()> {
    let mut v = Violations::default();
    check_count(&mut v, "apps", apps.len(), MAX_LIST);
    check_count(&mut v, "clusters", clusters.len(), MAX_LIST);
    check_count(&mut v, "resources", resources.len(), MAX_LIST);
    v.into_result()
}

/// Refuses a repeated field longer than `max`; false (and the items are not worth
/// checking one by one) when it is.
pub fn check_count(violations: &mut Violations, field: &str, len: usize, max: usize) -> bool {
    if len > max {
        violations.add(field, format!("at most {max} entries (got {len})"));
        return false;
    }
    true
}

/// The entries of a repeated `field` (at most `max`), each converted by `convert` with
/// its path (`field[i]`); none when there are too many.
pub fn entries<I, T>(
    violations: &mut Violations,
    field: &str,
    items: &[I],
    max: usize,
    mut convert: impl FnMut(&mut Violations, &str, &I) -> T,
) -> Vec<T> {
    if !check_count(violations, field, items.len(), max) {
        return Vec::new();
    }
    items
        .iter()
        .enumerate()
        .map(|(index, item)| convert(violations, &format!("{field}[{index}]"), item))
        .collect()
}

// ---------------------------------------------------------------------------------
// Scalars
// ---------------------------------------------------------------------------------

/// An optional value as the API's string, "" for none (proto3 has no absent string).
pub fn opt_string(value: Option<impl ToString>) -> String {
    value.map(|v| v.to_string()).unwrap_or_default()
}

/// A count as the API's `int32` (counts are numbers in JSON; int64 would be strings).
/// Counts are far below 2^31 (an instance holds at most 1,000 documents per app per
/// cluster); a larger one would show as `i32::MAX`, never wrap.
pub fn count(n: i64) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

pub fn timestamp(micros: i64) -> Option<Timestamp> {
    Some(Timestamp {
        seconds: micros.div_euclid(1_000_000),
        nanos: (micros.rem_euclid(1_000_000) * 1000) as i32,
    })
}

/// The etag of a generation.
pub fn etag(generation: i64) -> String {
    generation.to_string()
}

/// Parses an optional etag ("" = none).
pub fn parse_etag(etag: &str) -> Option<i64> {
    if etag.is_empty() {
        return None;
    }
    // An etag is opaque to the caller: one this server never issued is as stale as an
    // old one, and is told the same way (ABORTED, ETAG_MISMATCH), never matching.
    Some(
        etag.trim_matches('"')
            .parse::<i64>()
            .unwrap_or(NEVER_ISSUED),
    )
}

/// The generation an etag this server never issued stands for: generations start at
/// 1, so it matches nothing.
pub const NEVER_ISSUED: i64 = -1;

/// Parses a resource name of `kind` from request field `field`.
pub fn name(kind: &'static Kind, field: &str, value: &str) -> Result<ResourceName> {
    ResourceName::parse(kind, field, value).map_err(|v| Error::InvalidArgument {
        violations: vec![v],
    })
}

/// Parses the name of a status owner: a cluster (`clusterProviders/…`) or a
/// deployment intent group.
pub fn owner_name(field: &str, value: &str) -> Result<ResourceName> {
    let kind = if value.starts_with("clusterProviders/") {
        &CLUSTER
    } else {
        &DEPLOYMENT_INTENT_GROUP
    };
    name(kind, field, value)
}

/// Validates a new resource id.
pub fn id(field: &str, value: &str) -> Result<()> {
    validate_id(value).map_err(|why| Error::invalid(field, why))
}

pub fn check_id(violations: &mut Violations, field: &str, value: &str) {
    if let Err(why) = validate_id(value) {
        violations.add(field, why);
    }
}

pub fn check_description(violations: &mut Violations, field: &str, value: &str) {
    if value.chars().count() > MAX_DESCRIPTION_CHARS {
        violations.add(
            field,
            format!("must be at most {MAX_DESCRIPTION_CHARS} characters"),
        );
    }
}

/// Kubernetes label syntax: keys are `[prefix/]name`, names and values at most 63
/// characters of `[A-Za-z0-9._-]` starting and ending alphanumeric (values may be empty).
pub fn check_labels(violations: &mut Violations, field: &str, labels: &BTreeMap<String, String>) {
    if labels.len() > MAX_LABELS {
        violations.add(field, format!("at most {MAX_LABELS} labels"));
    }
    let segment_ok = |s: &str| {
        s.len() <= 63
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && s.chars().next().is_none_or(|c| c.is_ascii_alphanumeric())
            && s.chars().last().is_none_or(|c| c.is_ascii_alphanumeric())
    };
    for (key, value) in labels {
        let (prefix, name) = match key.rsplit_once('/') {
            Some((prefix, name)) => (Some(prefix), name),
            None => (None, key.as_str()),
        };
        let prefix_ok = prefix.is_none_or(|p| {
            !p.is_empty() && p.len() <= 253 && p.split('.').all(|part| validate_id(part).is_ok())
        });
        if name.is_empty() || !segment_ok(name) || !prefix_ok {
            violations.add(
                format!("{field}[{key:?}]"),
                "is not a valid label key ([prefix/]name, name at most 63 of [A-Za-z0-9._-])",
            );
        }
        if !segment_ok(value) {
            violations.add(
                format!("{field}[{key:?}]"),
                "is not a valid label value (at most 63 of [A-Za-z0-9._-])",
            );
        }
    }
}

/// The paths of an update mask, checked against the updatable fields; empty or `*`
/// means every updatable field.
pub fn mask_paths(
    mask: Option<&FieldMask>,
    updatable: &[&'static str],
) -> Result<Vec<&'static str>> {
    let paths = mask.map(|m| m.paths.as_slice()).unwrap_or_default();
    if paths.is_empty() || paths == ["*"] {
        return Ok(updatable.to_vec());
    }
    let mut violations = Violations::new();
    let mut selected = Vec::new();
    for (index, path) in paths.iter().enumerate() {
        match updatable.iter().find(|u| **u == path) {
            Some(u) => selected.push(*u),
            None => violations.add(
                format!("update_mask.paths[{index}]"),
                format!(
                    "{path:?} is not an updatable field (one of {})",
                    updatable.join(", ")
                ),
            ),
        }
    }
    violations.into_result()?;
    Ok(selected)
}

// ---------------------------------------------------------------------------------
// JSON <-> google.protobuf.Struct
// ---------------------------------------------------------------------------------

/// A protobuf Value as JSON. Whole numbers come back as integers (protobuf has only
/// doubles), so `replicas: 3` stays `3`, not `3.0`.
pub fn value_to_json(value: &prost_types::Value) -> Value {
    match &value.kind {
        None | Some(ValueKind::NullValue(_)) => Value::Null,
        Some(ValueKind::BoolValue(b)) => Value::Bool(*b),
        Some(ValueKind::NumberValue(n)) => {
            if n.fract() == 0.0 && n.abs() < 9.0e15 {
                Value::from(*n as i64)
            } else {
                serde_json::Number::from_f64(*n)
                    .map(Value::Number)
                    .unwrap_or(Value::Null)
            }
        }
        Some(ValueKind::StringValue(s)) => Value::String(s.clone()),
        Some(ValueKind::ListValue(list)) => {
            Value::Array(list.values.iter().map(value_to_json).collect())
        }
        Some(ValueKind::StructValue(s)) => struct_to_json(s),
    }
}

pub fn struct_to_json(s: &prost_types::Struct) -> Value {
    Value::Object(
        s.fields
            .iter()
            .map(|(k, v)| (k.clone(), value_to_json(v)))
            .collect(),
    )
}

/// A Struct a caller sent, as JSON, with the violations of what JSON cannot hold or
/// Flotilla does not take recorded under `path`: a number that is not finite (NaN and
/// the infinities would become `null`, which in a merge patch deletes the key), and
/// nesting past [`MAX_NESTING`](crate::domain::nesting::MAX_NESTING).
pub fn struct_from_caller(
    violations: &mut Violations,
    path: &str,
    s: &prost_types::Struct,
) -> Value {
    fn non_finite(violations: &mut Violations, path: &str, value: &prost_types::Value) {
        match &value.kind {
            Some(ValueKind::NumberValue(n)) if !n.is_finite() => violations.add(
                path,
                format!("{n} is not a JSON number (NaN and the infinities are refused)"),
            ),
            Some(ValueKind::ListValue(list)) => {
                for (i, item) in list.values.iter().enumerate() {
                    non_finite(violations, &format!("{path}[{i}]"), item);
                }
            }
            Some(ValueKind::StructValue(s)) => {
                for (key, item) in &s.fields {
                    non_finite(violations, &format!("{path}.{key}"), item);
                }
            }
            _ => {}
        }
    }
    for (key, item) in &s.fields {
        non_finite(violations, &format!("{path}.{key}"), item);
    }
    let value = struct_to_json(s);
    if let Err(violation) = check_nesting(path, &value) {
        violations.add(violation.field, violation.description);
    }
    value
}

/// A JSON value as a protobuf Value; its strings and keys move, not copied (numbers
/// become doubles, as protobuf's Value has no integers).
pub fn json_into_value(value: Value) -> prost_types::Value {
    let kind = match value {
        Value::Null => ValueKind::NullValue(0),
        Value::Bool(b) => ValueKind::BoolValue(b),
        Value::Number(n) => ValueKind::NumberValue(n.as_f64().unwrap_or_default()),
        Value::String(s) => ValueKind::StringValue(s),
        Value::Array(items) => ValueKind::ListValue(prost_types::ListValue {
            values: items.into_iter().map(json_into_value).collect(),
        }),
        object @ Value::Object(_) => ValueKind::StructValue(json_into_struct(object)),
    };
    prost_types::Value { kind: Some(kind) }
}

/// A JSON object as a Struct (non-objects give an empty Struct), moving its contents.
pub fn json_into_struct(value: Value) -> prost_types::Struct {
    prost_types::Struct {
        fields: match value {
            Value::Object(o) => o
                .into_iter()
                .map(|(k, v)| (k, json_into_value(v)))
                .collect(),
            _ => BTreeMap::new(),
        },
    }
}

/// [`json_into_struct`] for a response: `value` sits at nesting `depth` of the object
/// it belongs to (1 for a manifest, 2 for its metadata, spec or status), and what lies
/// past the API's limit is pruned (`nesting::prune_nesting`), so that every client
/// decodes the answer, whatever an older server stored or a controller wrote. (An
/// apply is never pruned: an agent fails what it cannot decode instead.)
pub fn json_into_view_struct(mut value: Value, depth: usize) -> prost_types::Struct {
    prune_nesting(&mut value, depth);
    json_into_struct(value)
}

/// [`json_into_struct`] of a borrowed value, converted in place of a copy.
pub fn json_to_struct(value: &Value) -> prost_types::Struct {
    borrowed_struct(value, None)
}

/// [`json_into_view_struct`] of a borrowed value: `value`, at nesting `depth`,
/// converted as it is read, each container past the limit replaced by
/// [`PRUNED`](crate::domain::nesting::PRUNED). An agent reports its cluster's objects
/// this way, with no copy of what it keeps.
pub fn json_to_pruned_struct(value: &Value, depth: usize) -> prost_types::Struct {
    borrowed_struct(value, Some(depth))
}

/// A borrowed object as a Struct; `depth`: its nesting, when past the limit prunes.
fn borrowed_struct(value: &Value, depth: Option<usize>) -> prost_types::Struct {
    let inner = depth.map(|d| d + 1);
    prost_types::Struct {
        fields: match value {
            Value::Object(o) => o
                .iter()
                .map(|(k, v)| (k.clone(), borrowed_value(v, inner)))
                .collect(),
            _ => BTreeMap::new(),
        },
    }
}

/// A borrowed value as a protobuf Value (see [`borrowed_struct`]).
fn borrowed_value(value: &Value, depth: Option<usize>) -> prost_types::Value {
    use crate::domain::nesting::{PRUNED, pruned_at};
    let kind = match value {
        _ if depth.is_some_and(|d| pruned_at(value, d)) => {
            ValueKind::StringValue(PRUNED.to_string())
        }
        Value::Null => ValueKind::NullValue(0),
        Value::Bool(b) => ValueKind::BoolValue(*b),
        Value::Number(n) => ValueKind::NumberValue(n.as_f64().unwrap_or_default()),
        Value::String(s) => ValueKind::StringValue(s.clone()),
        Value::Array(items) => ValueKind::ListValue(prost_types::ListValue {
            values: items
                .iter()
                .map(|v| borrowed_value(v, depth.map(|d| d + 1)))
                .collect(),
        }),
        Value::Object(_) => ValueKind::StructValue(borrowed_struct(value, depth)),
    };
    prost_types::Value { kind: Some(kind) }
}

// ---------------------------------------------------------------------------------
// Manifest patches
// ---------------------------------------------------------------------------------

pub fn patches_from_proto(
    violations: &mut Violations,
    field: &str,
    patches: &[pb::ManifestPatch],
) -> Vec<ManifestPatch> {
    entries(
        violations,
        field,
        patches,
        MAX_PATCHES,
        |violations, path, patch| {
            let merge_patch = match &patch.merge_patch {
                Some(s) => struct_from_caller(violations, &format!("{path}.merge_patch"), s),
                None => {
                    violations.add(format!("{path}.merge_patch"), "is required");
                    Value::Null
                }
            };
            if !patch.target_kind.is_empty()
                && let Err(why) = check_kind(&patch.target_kind)
            {
                violations.add(format!("{path}.target_kind"), why);
            }
            // A patch that renames or moves a document must keep it valid: a name is a
            // path segment on the API server and in an agent.
            if let Some(name) = merge_patch
                .pointer("/metadata/name")
                .and_then(Value::as_str)
                && let Err(why) = check_dns_subdomain(name)
            {
                violations.add(format!("{path}.merge_patch.metadata.name"), why);
            }
            if let Some(namespace) = merge_patch
                .pointer("/metadata/namespace")
                .and_then(Value::as_str)
                && let Err(why) = check_dns_label(namespace)
            {
                violations.add(format!("{path}.merge_patch.metadata.namespace"), why);
            }
            if patch.target_name.len() > 253 {
                violations.add(
                    format!("{path}.target_name"),
                    "must be at most 253 characters",
                );
            }
            ManifestPatch {
                target_kind: patch.target_kind.clone(),
                target_name: patch.target_name.clone(),
                merge_patch,
            }
        },
    )
}

pub fn patches_to_proto(patches: &[ManifestPatch]) -> Vec<pb::ManifestPatch> {
    patches
        .iter()
        .map(|p| pb::ManifestPatch {
            target_kind: p.target_kind.clone(),
            target_name: p.target_name.clone(),
            merge_patch: Some(json_to_struct(&p.merge_patch)),
        })
        .collect()
}

/// Labels from a proto map (already validated).
pub fn labels(map: &BTreeMap<String, String>) -> Labels {
    map.clone()
}

/// Conditions as protos.
pub fn conditions_to_proto(
    conditions: &[crate::domain::conditions::Condition],
) -> Vec<pb::Condition> {
    use crate::domain::conditions::{Severity, Status};
    conditions
        .iter()
        .map(|c| pb::Condition {
            r#type: c.type_.clone(),
            status: match c.status {
                Status::True => pb::ConditionStatus::True,
                Status::False => pb::ConditionStatus::False,
                Status::Unknown => pb::ConditionStatus::Unknown,
            } as i32,
            severity: match c.severity {
                Severity::Error => pb::ConditionSeverity::Error,
                Severity::Warning => pb::ConditionSeverity::Warning,
                Severity::Info => pb::ConditionSeverity::Info,
                Severity::None => pb::ConditionSeverity::Unspecified,
            } as i32,
            last_transition_time: timestamp(c.last_transition_time),
            reason: c.reason.clone(),
            message: c.message.clone(),
        })
        .collect()
}

/// A stored connectivity as its proto enum.
pub fn connectivity_to_proto(connectivity: Connectivity) -> pb::Connectivity {
    match connectivity {
        Connectivity::Unknown => pb::Connectivity::Unknown,
        Connectivity::Available => pb::Connectivity::Available,
        Connectivity::Retrying => pb::Connectivity::Retrying,
    }
}

/// A status entry's rsync status as its proto enum value (unset for cluster-only
/// resources).
pub fn rsync_status_to_proto(status: Option<RsyncStatus>) -> i32 {
    (match status {
        None => pb::RsyncStatus::Unspecified,
        Some(RsyncStatus::Pending) => pb::RsyncStatus::Pending,
        Some(RsyncStatus::Applied) => pb::RsyncStatus::Applied,
        Some(RsyncStatus::Failed) => pb::RsyncStatus::Failed,
        Some(RsyncStatus::Retrying) => pb::RsyncStatus::Retrying,
        Some(RsyncStatus::Terminated) => pb::RsyncStatus::Terminated,
        Some(RsyncStatus::Superseded) => pb::RsyncStatus::Superseded,
    }) as i32
}

/// A status entry's cluster status as its proto enum value (unset for RSYNC output).
pub fn cluster_status_to_proto(status: Option<ClusterStatus>) -> i32 {
    (match status {
        None => pb::ClusterResourceStatus::Unspecified,
        Some(ClusterStatus::Unknown) => pb::ClusterResourceStatus::Unknown,
        Some(ClusterStatus::NotPresent) => pb::ClusterResourceStatus::NotPresent,
        Some(ClusterStatus::Present) => pb::ClusterResourceStatus::Present,
    }) as i32
}

/// A status entry's readiness as its proto enum value.
pub fn readiness_to_proto(readiness: Readiness) -> i32 {
    (match readiness {
        Readiness::None => pb::Readiness::Unspecified,
        Readiness::Ready => pb::Readiness::Ready,
        Readiness::NotReady => pb::Readiness::NotReady,
    }) as i32
}

/// (cluster id, cluster provider) of `clusterProviders/{cp}/clusters/{c}`, as status
/// trees show a cluster.
pub fn cluster_id_and_provider(cluster: &str) -> (&str, &str) {
    (
        cluster.rsplit('/').next().unwrap_or_default(),
        cluster.split('/').nth(1).unwrap_or_default(),
    )
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::nesting::MAX_NESTING;

    /// `levels` containers below a top object, an array every third level, with a
    /// sibling of every kind of scalar beside each.
    fn nested(levels: usize) -> Value {
        let mut value = json!("leaf");
        for level in 0..levels {
            value = if level % 3 == 2 {
                json!([value, 1.5, null])
            } else {
                json!({ "k": value, "b": true, "n": -3, "s": "x" })
            };
        }
        json!({ "top": value, "empty": {} })
    }

    /// The borrowed conversions give what copying and converting gives, pruned where
    /// `json_into_view_struct` prunes, whatever the depth around the limit.
    #[test]
    fn a_borrowed_conversion_is_the_copied_one() {
        for levels in [
            0,
            1,
            5,
            MAX_NESTING - 3,
            MAX_NESTING - 1,
            MAX_NESTING,
            MAX_NESTING + 4,
        ] {
            let value = nested(levels);
            assert_eq!(
                json_to_struct(&value),
                json_into_struct(value.clone()),
                "{levels}"
            );
            for depth in [1, 2, 3] {
                assert_eq!(
                    json_to_pruned_struct(&value, depth),
                    json_into_view_struct(value.clone(), depth),
                    "{levels} levels at depth {depth}"
                );
            }
        }
        // Pruning did happen past the limit.
        let deep = format!("{:?}", json_to_pruned_struct(&nested(MAX_NESTING + 4), 2));
        assert!(deep.contains(crate::domain::nesting::PRUNED));
        assert_eq!(
            json_to_struct(&json!("not an object")),
            prost_types::Struct::default()
        );
    }
}
