//! How deep caller JSON may nest: one limit for every document and merge patch the API
//! takes, below what every decoder on the way accepts.
//!
//! A document travels as a `google.protobuf.Struct` (to the agents, in rendered
//! resources, in status entries), and protobuf decoders stop at 100 nested messages:
//! prost and Python's upb count each object as three (Struct, map entry, Value), so a
//! document of 34 nested objects no longer decodes in an agent's `ApplyResource`. A
//! document the server took and no agent could read cut that cluster's session for
//! every tenant on it. The limit is checked once, where the input enters (the
//! manifests' parser, the merge patches' conversion); `wire::convert`'s tests hold it
//! against every message that carries a Struct.

use serde_json::Value;

use crate::error::FieldViolation;

/// The most objects and arrays nested in one document or merge patch, the outermost
/// counted: `{"a": {"b": [1]}}` nests 3 deep.
pub const MAX_NESTING: usize = 32;

/// The violation of a `value` (at field path `path`) nested deeper than
/// [`MAX_NESTING`], naming the path of its first container past the limit.
pub fn check_nesting(path: &str, value: &Value) -> Result<(), FieldViolation> {
    match too_deep(value, 1) {
        None => Ok(()),
        Some(mut segments) => {
            segments.reverse();
            Err(too_deep_violation(
                format!("{path}{}", segments.concat()),
                "",
            ))
        }
    }
}

/// The violation of the container at `path`, past the limit; `at` says where in the
/// text it lies (" at line 4"), when known.
pub fn too_deep_violation(path: String, at: &str) -> FieldViolation {
    FieldViolation::new(
        path,
        format!(
            "nests objects and arrays more than {MAX_NESTING} deep{at} (Flotilla's limit, \
             below what the protobuf decoders of agents and clients accept)"
        ),
    )
}

/// The path segments (innermost first) to the first container of `value`, itself at
/// `depth`, that lies past the limit. Recursion stops at the limit, so it never goes
/// deeper than `MAX_NESTING + 1` frames.
fn too_deep(value: &Value, depth: usize) -> Option<Vec<String>> {
    let children: Box<dyn Iterator<Item = (String, &Value)>> = match value {
        Value::Object(map) => Box::new(map.iter().map(|(k, v)| (format!(".{k}"), v))),
        Value::Array(items) => {
            Box::new(items.iter().enumerate().map(|(i, v)| (format!("[{i}]"), v)))
        }
        _ => return None,
    };
    if depth > MAX_NESTING {
        return Some(Vec::new());
    }
    for (segment, child) in children {
        if let Some(mut path) = too_deep(child, depth + 1) {
            path.push(segment);
            return Some(path);
        }
    }
    None
}

/// What stands in for a part of a cluster object nested past the limit.
pub const PRUNED: &str = "(nested past Flotilla's limit of 32: not reported)";

/// Whether `value`, at nesting `depth`, is a container past [`MAX_NESTING`]: what
/// [`prune_nesting`] (and a conversion that prunes as it reads) replaces with
/// [`PRUNED`].
pub fn pruned_at(value: &Value, depth: usize) -> bool {
    (value.is_object() || value.is_array()) && depth > MAX_NESTING
}

/// Replaces each container of `value` (itself at nesting `depth`) that lies past
/// [`MAX_NESTING`] with [`PRUNED`]: what an agent reports of a cluster object must
/// decode at the server whatever a controller wrote into it. Recursion stops at the
/// limit.
pub fn prune_nesting(value: &mut Value, depth: usize) {
    if pruned_at(value, depth) {
        *value = Value::String(PRUNED.to_string());
        return;
    }
    match value {
        Value::Object(map) => map.values_mut().for_each(|v| prune_nesting(v, depth + 1)),
        Value::Array(items) => items.iter_mut().for_each(|v| prune_nesting(v, depth + 1)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// `depth` containers: objects, with an array every third level.
    pub fn nested(depth: usize) -> Value {
        let mut value = json!("leaf");
        for level in 0..depth {
            value = if level % 3 == 2 {
                json!([value])
            } else {
                json!({ "k": value })
            };
        }
        value
    }

    #[test]
    fn counts_objects_and_arrays() {
        assert!(check_nesting("p", &json!("scalar")).is_ok());
        assert!(check_nesting("p", &nested(MAX_NESTING)).is_ok());
        let violation = check_nesting("patch", &nested(MAX_NESTING + 1)).unwrap_err();
        // The path leads to the first container past the limit.
        let segments =
            violation.field.matches(".k").count() + violation.field.matches("[0]").count();
        assert_eq!(segments, MAX_NESTING, "{}", violation.field);
        assert!(
            violation.field.starts_with("patch[0].k"),
            "{}",
            violation.field
        );
        assert!(
            violation.description.contains("32"),
            "{}",
            violation.description
        );
    }

    #[test]
    fn prunes_what_lies_past_the_limit() {
        let mut shallow = nested(MAX_NESTING);
        prune_nesting(&mut shallow, 1);
        assert_eq!(shallow, nested(MAX_NESTING));
        let mut deep = json!({"keep": 1, "deep": nested(MAX_NESTING + 5)});
        prune_nesting(&mut deep, 1);
        assert!(check_nesting("x", &deep).is_ok());
        assert_eq!(deep["keep"], 1);
        let text = deep.to_string();
        assert!(text.contains(PRUNED), "{text}");
        // A value reported below the object's top level (`spec` at 2) is pruned a level
        // sooner.
        let mut spec = nested(MAX_NESTING);
        prune_nesting(&mut spec, 2);
        assert!(spec.to_string().contains(PRUNED));
    }

    #[test]
    fn finds_the_deep_branch_among_shallow_ones() {
        let value = json!({"a": 1, "b": [1, 2, {"c": nested(MAX_NESTING - 2)}], "z": {}});
        let violation = check_nesting("doc", &value).unwrap_err();
        assert!(
            violation.field.starts_with("doc.b[2].c[0].k"),
            "{}",
            violation.field
        );
    }
}
