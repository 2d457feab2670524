//! `flotilla apply -f` and `flotilla delete -f`: multi-document YAML, one resource per
//! document (`kind`, `name`, `spec`), validated whole before the first write, applied
//! parents first (deleted children first), one line per resource as kubectl prints.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::kinds::{self, Kind};
use crate::resources;
use crate::{Ctx, Exit};

/// One document, checked.
struct Document {
    /// Where it came from, for messages: `file.yaml` document 2.
    origin: String,
    kind: &'static Kind,
    name: String,
    /// The resource's fields in canonical JSON.
    spec: Value,
}

/// Reads, substitutes and checks every document of `files`; any error names the file,
/// the document and the field, before anything is written.
fn load(files: &[PathBuf], values: Option<&Path>) -> anyhow::Result<Vec<Document>> {
    let values = match values {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Exit::new(2, format!("cannot read {}: {e}", path.display())))?;
            serde_yaml_ng::from_str::<Value>(&text)
                .map_err(|e| Exit::new(2, format!("{}: {e}", path.display())))?
        }
        None => Value::Null,
    };
    let mut sources = Vec::new();
    for file in files {
        if file.as_os_str() == "-" {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin(), &mut text)?;
            sources.push((PathBuf::from("-"), text));
        } else if file.is_dir() {
            let mut entries: Vec<PathBuf> = std::fs::read_dir(file)?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
                .collect();
            entries.sort();
            for path in entries {
                let text = std::fs::read_to_string(&path)?;
                sources.push((path, text));
            }
        } else {
            let text = std::fs::read_to_string(file)
                .map_err(|e| Exit::new(2, format!("cannot read {}: {e}", file.display())))?;
            sources.push((file.clone(), text));
        }
    }
    let mut documents = Vec::new();
    let mut errors = Vec::new();
    for (path, text) in sources {
        let base = path.parent().map(Path::to_path_buf).unwrap_or_default();
        for (index, doc) in serde_yaml_ng::Deserializer::from_str(&text).enumerate() {
            let origin = format!("{} document {}", path.display(), index + 1);
            let value = match serde::Deserialize::deserialize(doc) {
                Ok(value) => value,
                Err(e) => {
                    errors.push(format!("{origin}: not YAML: {e}"));
                    // A syntax error ends what the stream can read: the deserializer
                    // yields the same error again for ever after it (apply never
                    // returned, and grew by about 130 MB/s).
                    break;
                }
            };
            let value: Value = value;
            if value.is_null() {
                continue;
            }
            match substitute(value, &values).and_then(|value| document(&origin, value, &base)) {
                Ok(document) => documents.push(document),
                Err(e) => errors.push(format!("{origin}: {e}")),
            }
        }
    }
    if !errors.is_empty() {
        return Err(Exit::new(2, errors.join("\n")).into());
    }
    let mut seen = std::collections::HashSet::new();
    for d in &documents {
        if !seen.insert(d.name.clone()) {
            return Err(Exit::new(2, format!("{}: {} is declared twice", d.origin, d.name)).into());
        }
    }
    // Parents first; the order of the files within a depth.
    documents.sort_by_key(|d| d.kind.depth());
    Ok(documents)
}

/// Replaces `{{ .Values.a.b }}` (or `{{ .a.b }}`) in every string with the value at
/// that path of the values file.
fn substitute(value: Value, values: &Value) -> Result<Value, String> {
    Ok(match value {
        // A string that is one whole `{{ … }}` takes the value as it is (a number
        // stays a number); otherwise the values are spliced into the text.
        Value::String(text) if whole_expression(&text) => {
            let spliced = substitute_text(&text, values)?;
            let key = text
                .trim()
                .trim_start_matches("{{")
                .trim_end_matches("}}")
                .trim();
            let path = key
                .strip_prefix(".Values.")
                .or_else(|| key.strip_prefix('.'));
            path.and_then(|p| p.split('.').try_fold(values, |v, part| v.get(part)))
                .cloned()
                .unwrap_or(Value::String(spliced))
        }
        Value::String(text) => Value::String(substitute_text(&text, values)?),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| substitute(v, values))
                .collect::<Result<_, _>>()?,
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| Ok((k, substitute(v, values)?)))
                .collect::<Result<_, String>>()?,
        ),
        other => other,
    })
}

fn whole_expression(text: &str) -> bool {
    let text = text.trim();
    text.starts_with("{{") && text.ends_with("}}") && text.matches("{{").count() == 1
}

fn substitute_text(text: &str, values: &Value) -> Result<String, String> {
    let mut out = String::new();
    let mut rest = text;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let end = rest[start..]
            .find("}}")
            .ok_or_else(|| format!("unclosed {{{{ in {text:?}"))?;
        let key = rest[start + 2..start + end].trim();
        let path = key
            .strip_prefix(".Values.")
            .or_else(|| key.strip_prefix('.'))
            .ok_or_else(|| format!("{{{{ {key} }}}}: expected {{{{ .Values.name }}}}"))?;
        let found = path
            .split('.')
            .try_fold(values, |v, part| v.get(part))
            .ok_or_else(|| format!("{{{{ {key} }}}}: no such value in the values file"))?;
        match found {
            Value::String(s) => out.push_str(s),
            other => out.push_str(&other.to_string()),
        }
        rest = &rest[start + end + 2..];
    }
    out.push_str(rest);
    Ok(out)
}

fn document(origin: &str, value: Value, base: &Path) -> Result<Document, String> {
    let object = value
        .as_object()
        .ok_or("a document is a mapping with kind, name and spec")?;
    for key in object.keys() {
        if !["kind", "name", "spec"].contains(&key.as_str()) {
            return Err(format!(
                "field {key}: unknown (a document has kind, name and spec)"
            ));
        }
    }
    let kind_text = object
        .get("kind")
        .and_then(Value::as_str)
        .ok_or("field kind: missing")?;
    let kind = kinds::find(kind_text).ok_or_else(|| {
        format!(
            "field kind: unknown kind {kind_text:?} (kinds: {})",
            kinds::names()
        )
    })?;
    if !kind.appliable {
        return Err(format!(
            "field kind: {} is not applied from files; use `flotilla {}`",
            kind.name, kind.aliases[0]
        ));
    }
    let name = object
        .get("name")
        .and_then(Value::as_str)
        .ok_or("field name: missing (the resource name, e.g. projects/demo)")?;
    kind.split(name).map_err(|e| format!("field name: {e}"))?;
    let mut spec = object
        .get("spec")
        .cloned()
        .unwrap_or(Value::Object(Default::default()));
    let fields = spec
        .as_object_mut()
        .ok_or("field spec: must be a mapping")?;
    for reserved in ["name", "uid", "etag", "createTime", "updateTime"] {
        if fields.contains_key(reserved) {
            return Err(format!(
                "field spec.{reserved}: set by the server, not in a spec"
            ));
        }
    }
    // App manifests from a file next to the YAML.
    if let Some(file) = fields.remove("manifestsFile") {
        let file = file
            .as_str()
            .ok_or("field spec.manifestsFile: must be a path")?;
        let path = base.join(file);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            format!(
                "field spec.manifestsFile: cannot read {}: {e}",
                path.display()
            )
        })?;
        fields.insert("manifests".into(), Value::String(text));
    }
    if let Some(Value::String(manifests)) = spec.get("manifests") {
        check_manifests(manifests)?;
    }
    let spec = resources::validate(kind, &spec).map_err(|(path, e)| {
        let path = if path.is_empty() {
            "spec".to_string()
        } else {
            format!("spec.{path}")
        };
        format!("field {path}: {e}")
    })?;
    Ok(Document {
        origin: origin.to_string(),
        kind,
        name: name.to_string(),
        spec,
    })
}

/// An app's manifests as the server first checks them: YAML documents (or a JSON list),
/// each a mapping with `apiVersion`, `kind` and `metadata.name`; the server checks the
/// rest (names, nesting, duplicates) when the document is applied.
fn check_manifests(text: &str) -> Result<(), String> {
    let mut documents = Vec::new();
    for (index, doc) in serde_yaml_ng::Deserializer::from_str(text).enumerate() {
        let value: Value = serde::Deserialize::deserialize(doc)
            .map_err(|e| format!("field spec.manifests[{index}]: not YAML: {e}"))?;
        match value {
            Value::Null => {}
            // A JSON list of documents is one YAML document.
            Value::Array(items) if index == 0 && text.trim_start().starts_with('[') => {
                documents.extend(items)
            }
            other => documents.push(other),
        }
    }
    if documents.is_empty() {
        return Err("field spec.manifests: holds no document".into());
    }
    for (index, document) in documents.iter().enumerate() {
        for (pointer, field) in [
            ("/apiVersion", "apiVersion"),
            ("/kind", "kind"),
            ("/metadata/name", "metadata.name"),
        ] {
            if document
                .pointer(pointer)
                .and_then(Value::as_str)
                .is_none_or(str::is_empty)
            {
                return Err(format!(
                    "field spec.manifests[{index}].{field}: a non-empty string is required"
                ));
            }
        }
    }
    Ok(())
}

/// Whether `existing` already has every field of `spec` (a default the server omits
/// counts as equal).
fn unchanged(spec: &Value, existing: &Value) -> bool {
    let Some(fields) = spec.as_object() else {
        return true;
    };
    fields.iter().all(|(key, want)| match existing.get(key) {
        Some(have) => have == want,
        None => is_default(want),
    })
}

fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

pub async fn apply(
    ctx: &Ctx,
    files: &[PathBuf],
    values: Option<&Path>,
    dry_run: bool,
) -> anyhow::Result<()> {
    let documents = load(files, values)?;
    let resources = ctx.resources().await?;
    check_parents(&documents, &resources).await?;
    let suffix = if dry_run { " (dry run)" } else { "" };
    for d in documents {
        let what = format!("{} {}", d.kind.name, d.name);
        match resources.find(d.kind, &d.name).await? {
            None => {
                if !dry_run {
                    resources
                        .create(d.kind, &d.name, &d.spec)
                        .await
                        .map_err(|s| with_origin(s, &d.origin))?;
                }
                println!("{what} created{suffix}");
            }
            Some(existing) if unchanged(&d.spec, &existing) => println!("{what} unchanged"),
            Some(existing) => {
                if !dry_run {
                    let etag = existing["etag"].as_str().unwrap_or_default();
                    let changed: serde_json::Map<String, Value> = d
                        .spec
                        .as_object()
                        .into_iter()
                        .flatten()
                        .filter(|(k, v)| existing.get(k.as_str()) != Some(v))
                        .map(|(k, v)| (k.clone(), v.clone()))
                        .collect();
                    resources
                        .update(d.kind, &d.name, etag, &Value::Object(changed))
                        .await
                        .map_err(|s| with_origin(s, &d.origin))?;
                }
                println!("{what} configured{suffix}");
            }
        }
    }
    Ok(())
}

/// Every document's parent is declared in the files or exists on the server, checked
/// before the first write: a missing parent used to leave the documents before it
/// created.
async fn check_parents(
    documents: &[Document],
    resources: &resources::Resources,
) -> anyhow::Result<()> {
    let declared: std::collections::HashSet<&str> =
        documents.iter().map(|d| d.name.as_str()).collect();
    let mut errors = Vec::new();
    let mut found = std::collections::HashSet::new();
    for d in documents {
        let Some(parent_kind) = d.kind.parent.and_then(kinds::find) else {
            continue;
        };
        let (parent, _) = d.kind.split(&d.name).map_err(|e| Exit::new(2, e))?;
        if declared.contains(parent) || found.contains(parent) {
            continue;
        }
        if resources.find(parent_kind, parent).await?.is_some() {
            found.insert(parent.to_string());
        } else {
            errors.push(format!(
                "{}: field name: its parent {} {parent} is neither in the files nor on the server",
                d.origin, parent_kind.name
            ));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Exit::new(2, errors.join("\n")).into())
    }
}

pub async fn delete(ctx: &Ctx, files: &[PathBuf], values: Option<&Path>) -> anyhow::Result<()> {
    let mut documents = load(files, values)?;
    documents.reverse();
    let resources = ctx.resources().await?;
    for d in documents {
        let what = format!("{} {}", d.kind.name, d.name);
        let Some(existing) = resources.find(d.kind, &d.name).await? else {
            println!("{what} not found");
            continue;
        };
        if d.kind.name == "DeploymentIntentGroup"
            && existing["state"] == "DEPLOYMENT_INTENT_GROUP_STATE_INSTANTIATED"
        {
            resources
                .verb(
                    "TerminateDeploymentIntentGroup",
                    serde_json::json!({ "name": d.name }),
                )
                .await
                .map_err(|s| with_origin(s, &d.origin))?;
            println!("{what} terminated");
        }
        resources
            .delete(d.kind, &d.name, "")
            .await
            .map_err(|s| with_origin(s, &d.origin))?;
        println!("{what} deleted");
    }
    Ok(())
}

/// A refused call, prefixed with the document that asked for it.
fn with_origin(status: tonic::Status, origin: &str) -> tonic::Status {
    let mut with = tonic::Status::with_details(
        status.code(),
        format!("{origin}: {}", status.message()),
        status.details().to_vec().into(),
    );
    *with.metadata_mut() = status.metadata().clone();
    with
}
