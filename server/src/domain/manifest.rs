//! Parsing and validation of app manifests: multi-document YAML or a JSON list of
//! objects. Every document must be an object with `apiVersion`, `kind` and
//! `metadata.name`; errors name the document index and the field.

use serde::Deserialize;
use serde_json::Value;

use super::nesting::{check_nesting, too_deep_violation};
use super::yaml_depth::first_too_deep;
use crate::error::{Error, FieldViolation, Result};

/// The largest `manifests` text accepted, in bytes.
pub const MAX_MANIFESTS_BYTES: usize = 1024 * 1024;
/// The most documents one app may hold.
pub const MAX_DOCUMENTS: usize = 1000;

/// A Kubernetes group/version/kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Gvk {
    pub group: String,
    pub version: String,
    pub kind: String,
}

impl Gvk {
    /// Splits an `apiVersion` ("apps/v1" or "v1") and a kind.
    pub fn from_api_version(api_version: &str, kind: &str) -> Gvk {
        let (group, version) = match api_version.split_once('/') {
            Some((group, version)) => (group, version),
            None => ("", api_version),
        };
        Gvk {
            group: group.to_string(),
            version: version.to_string(),
            kind: kind.to_string(),
        }
    }

    /// The `apiVersion` ("apps/v1", or "v1" for the core group).
    pub fn api_version(&self) -> String {
        if self.group.is_empty() {
            self.version.clone()
        } else {
            format!("{}/{}", self.group, self.version)
        }
    }
}

/// Parses `text` into its documents, checking limits and required fields. `field` is
/// the request field the text came from, used in violations.
pub fn parse_manifests(field: &str, text: &str) -> Result<Vec<Value>> {
    if text.len() > MAX_MANIFESTS_BYTES {
        return Err(Error::over_limit(
            "MANIFESTS_TOO_LARGE",
            field,
            "manifests are",
            text.len(),
            MAX_MANIFESTS_BYTES,
            "bytes",
        ));
    }
    let documents = if text.trim_start().starts_with('[') {
        parse_json_list(field, text)?
    } else {
        parse_yaml_documents(field, text)?
    };
    if documents.is_empty() {
        return Err(Error::invalid(field, "must hold at least one document"));
    }
    if documents.len() > MAX_DOCUMENTS {
        return Err(Error::over_limit(
            "TOO_MANY_DOCUMENTS",
            field,
            "manifests hold",
            documents.len(),
            MAX_DOCUMENTS,
            "documents",
        ));
    }
    let mut violations = Vec::new();
    for (index, document) in documents.iter().enumerate() {
        let path = format!("{field}[{index}]");
        violations.extend(check_nesting(&path, document).err());
        violations.extend(check_document(&path, document));
    }
    if !violations.is_empty() {
        return Err(Error::InvalidArgument { violations });
    }
    Ok(documents)
}

/// A JSON value read strictly: an object with a key twice is an error, not its last
/// value (serde_json's `Value` keeps the last, so a manifest said one thing and
/// applied another), and so is a number JSON cannot hold (YAML's `.nan` and `.inf`).
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: serde::Deserializer<'de>>(
        deserializer: D,
    ) -> std::result::Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> serde::de::Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> std::result::Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> std::result::Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: serde::de::Error>(self, v: f64) -> std::result::Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| {
                E::custom(format!(
                    "{v} is not a JSON number (NaN and the infinities are refused)"
                ))
            })
    }

    fn visit_str<E>(self, v: &str) -> std::result::Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> std::result::Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> std::result::Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Value, D::Error> {
        Strict::deserialize(d).map(|s| s.0)
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(Strict(item)) = seq.next_element()? {
            items.push(item);
        }
        Ok(Value::Array(items))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(
        self,
        mut map: A,
    ) -> std::result::Result<Value, A::Error> {
        let mut object = serde_json::Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value()?;
            if object.contains_key(&key) {
                return Err(serde::de::Error::custom(format!("duplicate key {key:?}")));
            }
            object.insert(key, value);
        }
        Ok(Value::Object(object))
    }
}

fn parse_json_list(field: &str, text: &str) -> Result<Vec<Value>> {
    let value: Value = serde_json::from_str::<Strict>(text)
        .map(|s| s.0)
        .map_err(|e| {
            Error::invalid(
                field,
                format!(
                    "malformed JSON at line {} column {}: {e}",
                    e.line(),
                    e.column()
                ),
            )
        })?;
    match value {
        Value::Array(items) => Ok(items),
        _ => Err(Error::invalid(
            field,
            "a JSON manifest must be a list of objects",
        )),
    }
}

fn parse_yaml_documents(field: &str, text: &str) -> Result<Vec<Value>> {
    // Nesting is bounded before any document is built: past the limit, libyaml's cost
    // grows with the square of the depth (see `yaml_depth`).
    if let Some(deep) = first_too_deep(text) {
        return Err(Error::InvalidArgument {
            violations: vec![too_deep_violation(
                format!("{field}[{}]{}", deep.document, deep.path),
                &format!(" at line {}", deep.line),
            )],
        });
    }
    let mut documents = Vec::new();
    for (index, document) in serde_yaml_ng::Deserializer::from_str(text).enumerate() {
        let value = Strict::deserialize(document).map(|s| s.0).map_err(|e| {
            let at = e
                .location()
                .map(|l| format!(" at line {} column {}", l.line(), l.column()))
                .unwrap_or_default();
            Error::invalid(
                format!("{field}[{index}]"),
                format!("malformed YAML{at}: {e}"),
            )
        })?;
        // Empty documents (a stray `---`) are skipped, as kubectl does.
        if !value.is_null() {
            documents.push(value);
        }
    }
    Ok(documents)
}

/// The violations of one document: it must be an object with string `apiVersion`,
/// `kind` and `metadata.name`, and an optional string `metadata.namespace`.
pub fn check_document(path: &str, document: &Value) -> Vec<FieldViolation> {
    let Some(object) = document.as_object() else {
        return vec![FieldViolation::new(path, "a document must be an object")];
    };
    let mut violations = Vec::new();
    let mut refuse = |member: &str, why: &str| {
        violations.push(FieldViolation::new(format!("{path}.{member}"), why));
    };
    for key in ["apiVersion", "kind"] {
        match object.get(key) {
            Some(Value::String(s)) if !s.is_empty() => {}
            Some(_) => refuse(key, "must be a non-empty string"),
            None => refuse(key, "is required"),
        }
    }
    let kind = object
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if !kind.is_empty()
        && let Err(why) = check_kind(kind)
    {
        refuse("kind", &why);
    }
    if let Some(Value::String(version)) = object.get("apiVersion")
        && !version.is_empty()
        && let Err(why) = check_api_version(version)
    {
        refuse("apiVersion", &why);
    }
    let Some(metadata) = object.get("metadata") else {
        refuse("metadata.name", "is required");
        return violations;
    };
    let Value::Object(metadata) = metadata else {
        refuse("metadata", "must be an object");
        return violations;
    };
    match metadata.get("name") {
        Some(Value::String(s)) if !s.is_empty() => {
            if let Err(why) = check_object_name(kind, s) {
                refuse("metadata.name", &why);
            }
        }
        Some(_) => refuse("metadata.name", "must be a non-empty string"),
        None => refuse("metadata.name", "is required"),
    }
    match metadata.get("namespace") {
        None => {}
        Some(Value::String(namespace)) => {
            if let Err(why) = check_dns_label(namespace) {
                refuse("metadata.namespace", &why);
            }
        }
        Some(_) => refuse("metadata.namespace", "must be a string"),
    }
    if let Some(labels) = metadata.get("labels")
        && !labels
            .as_object()
            .is_some_and(|l| l.values().all(Value::is_string))
    {
        refuse("metadata.labels", "must be a map of strings");
    }
    violations
}

/// Kubernetes' rule for most object names (RFC 1123 subdomain): at most 253 of
/// lowercase letters, digits, `-` and `.`, starting and ending with a letter or digit.
/// Names are path segments on a real API server (and in an agent), so `/`, `..` and
/// upper case never pass.
pub fn check_dns_subdomain(name: &str) -> Result<(), String> {
    let ok = name.len() <= 253 && name.split('.').all(|part| check_dns_label(part).is_ok());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name:?} is not a valid Kubernetes name (RFC 1123 subdomain: at most 253 of \
             a-z, 0-9, '-' and '.', starting and ending with a letter or digit)"
        ))
    }
}

/// Kubernetes' rule for namespaces and some names (RFC 1123 label): at most 63 of
/// lowercase letters, digits and `-`, starting and ending with a letter or digit.
pub fn check_dns_label(label: &str) -> Result<(), String> {
    let ok = !label.is_empty()
        && label.len() <= 63
        && label
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !label.starts_with('-')
        && !label.ends_with('-');
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{label:?} is not a valid Kubernetes label name (RFC 1123 label: at most 63 of \
             a-z, 0-9 and '-', starting and ending with a letter or digit)"
        ))
    }
}

/// The name rule of `kind`: RFC 1123 labels for the kinds whose names become DNS
/// labels (Namespace, Service), subdomains for the rest.
pub fn check_object_name(kind: &str, name: &str) -> Result<(), String> {
    match kind {
        "Namespace" | "Service" => check_dns_label(name),
        _ => check_dns_subdomain(name),
    }
}

/// A kind is a CamelCase identifier: a letter, then letters and digits, at most 63.
pub fn check_kind(kind: &str) -> Result<(), String> {
    let ok = kind.len() <= 63
        && kind.starts_with(|c: char| c.is_ascii_alphabetic())
        && kind.chars().all(|c| c.is_ascii_alphanumeric());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{kind:?} is not a valid kind (a letter, then letters and digits)"
        ))
    }
}

/// `version` or `group/version`: the group an RFC 1123 subdomain, the version a label.
pub fn check_api_version(api_version: &str) -> Result<(), String> {
    let (group, version) = match api_version.split_once('/') {
        Some((group, version)) => (Some(group), version),
        None => (None, api_version),
    };
    let ok =
        check_dns_label(version).is_ok() && group.is_none_or(|g| check_dns_subdomain(g).is_ok());
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{api_version:?} is not a valid apiVersion (version or group/version, lower case)"
        ))
    }
}

/// The string at `pointer` in `document` ("" when absent or not a string).
fn text_at(document: &Value, pointer: &str) -> String {
    document
        .pointer(pointer)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

/// The identity of a valid document: GVK, namespace (canonical: "" for the default
/// namespace, however the document spells it) and name.
pub fn identity(document: &Value) -> (Gvk, String, String) {
    let text = |pointer: &str| text_at(document, pointer);
    (
        Gvk::from_api_version(&text("/apiVersion"), &text("/kind")),
        canonical_namespace(text("/metadata/namespace")),
        text("/metadata/name"),
    )
}

/// The identity of a document a cluster is asked to apply: GVK, namespace as written
/// and name; an error when apiVersion, kind or metadata.name is missing.
pub fn applied_identity(document: &Value) -> Result<(Gvk, String, String), String> {
    let text = |pointer: &str| text_at(document, pointer);
    let (api_version, kind, name) = (text("/apiVersion"), text("/kind"), text("/metadata/name"));
    if api_version.is_empty() || kind.is_empty() || name.is_empty() {
        return Err("apiVersion, kind and metadata.name are required".into());
    }
    Ok((
        Gvk::from_api_version(&api_version, &kind),
        text("/metadata/namespace"),
        name,
    ))
}

/// The one spelling of a namespace inside Flotilla: the default namespace is "" (what a
/// manifest that names none says, and what a cluster-scoped object has), whether a
/// caller, a manifest or an agent wrote "default" (a Kubernetes API server does) or
/// nothing. Applied where a namespace enters: manifests' identities, agents' reports,
/// action and simulator requests. Toward Kubernetes, "" is the default namespace for
/// namespaced kinds (`k8s::KubeCluster::api`).
pub fn canonical_namespace(namespace: String) -> String {
    if namespace == DEFAULT_NAMESPACE {
        String::new()
    } else {
        namespace
    }
}

/// Kubernetes' default namespace, as people and API servers spell it.
pub const DEFAULT_NAMESPACE: &str = "default";

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn applied_identity_needs_kind_and_name() {
        use serde_json::json;
        assert!(applied_identity(&json!({"kind": "ConfigMap"})).is_err());
        let (gvk, namespace, name) = applied_identity(&json!({
            "apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "web", "namespace": "shop"}
        }))
        .unwrap();
        assert_eq!((gvk.group.as_str(), gvk.version.as_str()), ("apps", "v1"));
        assert_eq!((namespace.as_str(), name.as_str()), ("shop", "web"));
    }

    const TWO_DOCS: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 1\n---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n  namespace: prod\n";

    #[test]
    fn refuses_duplicate_keys_and_numbers_json_cannot_hold() {
        let yaml = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  name: b\n";
        let error = parse_manifests("app.manifests", yaml)
            .unwrap_err()
            .to_string();
        assert!(error.contains("duplicate key \"name\""), "{error}");
        let json = r#"[{"apiVersion": "v1", "kind": "ConfigMap", "kind": "Secret", "metadata": {"name": "a"}}]"#;
        let error = parse_manifests("app.manifests", json)
            .unwrap_err()
            .to_string();
        assert!(error.contains("duplicate key \"kind\""), "{error}");
        for number in [".nan", ".inf", "-.inf"] {
            let yaml = format!(
                "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\ndata:\n  x: {number}\n"
            );
            let error = parse_manifests("app.manifests", &yaml)
                .unwrap_err()
                .to_string();
            assert!(error.contains("not a JSON number"), "{number}: {error}");
        }
        // The same key in different objects is fine.
        let yaml =
            "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: a\n  labels:\n    name: x\n";
        assert!(parse_manifests("app.manifests", yaml).is_ok());
    }

    #[test]
    fn parses_multi_document_yaml() {
        let docs = parse_manifests("app.manifests", TWO_DOCS).unwrap();
        assert_eq!(docs.len(), 2);
        let (gvk, ns, name) = identity(&docs[0]);
        assert_eq!((gvk.group.as_str(), gvk.version.as_str()), ("apps", "v1"));
        assert_eq!((ns.as_str(), name.as_str()), ("", "web"));
        let (gvk, ns, _) = identity(&docs[1]);
        assert_eq!((gvk.group.as_str(), gvk.kind.as_str()), ("", "Service"));
        assert_eq!(ns, "prod");
    }

    #[test]
    fn parses_json_lists() {
        let docs = parse_manifests(
            "m",
            r#"[{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}]"#,
        )
        .unwrap();
        assert_eq!(docs.len(), 1);
    }

    #[test]
    fn names_the_document_and_field_of_each_error() {
        let text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ok\n---\nkind: Pod\nmetadata: {}\n";
        let Err(Error::InvalidArgument { violations }) = parse_manifests("app.manifests", text)
        else {
            panic!("expected invalid argument");
        };
        let fields: Vec<_> = violations.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(
            fields,
            [
                "app.manifests[1].apiVersion",
                "app.manifests[1].metadata.name"
            ]
        );
    }

    #[test]
    fn names_namespaces_and_kinds_follow_kubernetes() {
        let doc = |kind: &str, name: &str, namespace: &str| {
            serde_json::json!({"apiVersion": "v1", "kind": kind,
                "metadata": {"name": name, "namespace": namespace}})
        };
        assert!(check_document("d", &doc("ConfigMap", "web.config-1", "prod")).is_empty());
        for (kind, name, namespace, field) in [
            ("ConfigMap", "Bad_Name", "prod", "d.metadata.name"),
            ("ConfigMap", "Bad_Name/../x", "prod", "d.metadata.name"),
            ("ConfigMap", "..", "prod", "d.metadata.name"),
            ("ConfigMap", "-web", "prod", "d.metadata.name"),
            ("Service", "web.internal", "prod", "d.metadata.name"),
            ("ConfigMap", "web", "Prod", "d.metadata.namespace"),
            ("ConfigMap", "web", "a.b", "d.metadata.namespace"),
            ("Config/Map", "web", "prod", "d.kind"),
        ] {
            let violations = check_document("d", &doc(kind, name, namespace));
            assert_eq!(
                violations
                    .iter()
                    .map(|v| v.field.as_str())
                    .collect::<Vec<_>>(),
                [field],
                "{kind} {namespace}/{name}"
            );
        }
        assert!(check_dns_subdomain(&"a".repeat(254)).is_err());
        assert!(check_dns_label(&"a".repeat(64)).is_err());
        assert!(check_api_version("apps/v1").is_ok());
        assert!(check_api_version("../v1").is_err());
    }

    #[test]
    fn malformed_yaml_names_the_document() {
        let text = "apiVersion: v1\nkind: A\nmetadata: {name: a}\n---\nkind: [unclosed\n";
        let Err(Error::InvalidArgument { violations }) = parse_manifests("m", text) else {
            panic!("expected invalid argument");
        };
        assert_eq!(violations[0].field, "m[1]");
        assert!(violations[0].description.contains("malformed YAML"));
    }

    #[test]
    fn limits_are_resource_exhausted() {
        let big = "a".repeat(MAX_MANIFESTS_BYTES + 1);
        assert!(matches!(
            parse_manifests("m", &big),
            Err(Error::ResourceExhausted { .. })
        ));
        let many =
            "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: a}\n---\n".repeat(MAX_DOCUMENTS + 1);
        assert!(matches!(
            parse_manifests("m", &many),
            Err(Error::ResourceExhausted { .. })
        ));
    }

    #[test]
    fn empty_and_scalar_inputs_are_invalid() {
        for text in ["", "---\n", "42", "[1, 2]", "{}"] {
            assert!(
                matches!(
                    parse_manifests("m", text),
                    Err(Error::InvalidArgument { .. })
                ),
                "{text:?}"
            );
        }
    }

    proptest! {
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,300}") {
            let _ = parse_manifests("m", &text);
        }

        #[test]
        fn generated_documents_round_trip(
            names in proptest::collection::vec("[a-z]([a-z0-9-]{0,19}[a-z0-9])?", 1..20),
        ) {
            let text: String = names
                .iter()
                .map(|n| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {n}\n---\n"))
                .collect();
            let docs = parse_manifests("m", &text).unwrap();
            prop_assert_eq!(docs.len(), names.len());
            for (doc, name) in docs.iter().zip(&names) {
                prop_assert_eq!(identity(doc).2, name.clone());
            }
        }
    }
}
