//! Build-time half of the kind declarations: reads every message of `flotilla.v1` that
//! carries a `google.api.resource` option and derives what the server, the CLI and the
//! clients need of it (collections, parent, id fields, table, RPC names), then writes
//! it as Rust statics and as name builders in Rust, Python and TypeScript.
//!
//! The proto is the one declaration: a kind's pattern names its collections and ids,
//! its parent is the kind whose pattern is the longest proper prefix of its own, and
//! its RPCs are found by their AIP-131..135 names (`Create{Kind}`, `List{Plural}`).

use std::fmt::Write;

use prost_reflect::{DescriptorPool, Value};

use crate::case::{lower_camel, snake, upper_first};

/// One declared kind, as derived from its message and its service.
#[derive(Debug, Clone)]
pub struct Decl {
    /// `Project`.
    pub message: String,
    /// `projects/{project}/compositeApps/{composite_app}/versions/{version}`.
    pub pattern: String,
    /// `(collection, variable)` pairs, outermost first.
    pub pairs: Vec<(String, String)>,
    /// lowerCamel singular and plural: `compositeApp`, `compositeApps`.
    pub singular: String,
    pub plural: String,
    /// Index in the declaration list of the parent kind.
    pub parent: Option<usize>,
    /// The service whose `Create{Kind}` creates it.
    pub service: String,
    /// Whether `List{Plural}` takes a `parent`.
    pub list_has_parent: bool,
}

impl Decl {
    /// How many leading pairs name the parent.
    pub fn parent_pairs(&self, all: &[Decl]) -> usize {
        self.parent.map_or(0, |p| all[p].pairs.len())
    }

    /// The pairs after the parent's: this kind's own collections and ids.
    pub fn own_pairs<'a>(&'a self, all: &[Decl]) -> &'a [(String, String)] {
        &self.pairs[self.parent_pairs(all)..]
    }
}

/// Every declared kind of `flotilla.v1`, in the order of the proto files.
pub fn declared(pool: &DescriptorPool) -> Result<Vec<Decl>, String> {
    let extension = pool
        .get_extension_by_name("google.api.resource")
        .ok_or("google/api/resource.proto is not imported")?;
    let mut kinds = Vec::new();
    for message in pool.all_messages() {
        if message.package_name() != "flotilla.v1" {
            continue;
        }
        let options = message.options();
        if !options.has_extension(&extension) {
            continue;
        }
        let resource = options.get_extension(&extension);
        let Value::Message(resource) = resource.as_ref() else {
            return Err(format!(
                "{}: the resource option is not a message",
                message.name()
            ));
        };
        let text = |field: &str| -> String {
            resource
                .get_field_by_name(field)
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default()
        };
        let pattern = match resource.get_field_by_name("pattern").as_deref() {
            Some(Value::List(patterns)) if patterns.len() == 1 => {
                patterns[0].as_str().unwrap_or_default().to_string()
            }
            _ => return Err(format!("{}: declare exactly one pattern", message.name())),
        };
        let parts: Vec<&str> = pattern.split('/').collect();
        if !parts.len().is_multiple_of(2) {
            return Err(format!(
                "{}: {pattern:?} is not collection/{{id}} pairs",
                message.name()
            ));
        }
        let mut pairs = Vec::new();
        for pair in parts.chunks(2) {
            let variable = pair[1]
                .strip_prefix('{')
                .and_then(|v| v.strip_suffix('}'))
                .ok_or_else(|| {
                    format!("{}: {:?} is not a {{variable}}", message.name(), pair[1])
                })?;
            pairs.push((pair[0].to_string(), variable.to_string()));
        }
        let (singular, plural) = (text("singular"), text("plural"));
        if singular.is_empty() || plural.is_empty() {
            return Err(format!("{}: declare singular and plural", message.name()));
        }
        if text("type") != format!("flotilla.v1/{}", message.name()) {
            return Err(format!(
                "{}: type must be flotilla.v1/{}",
                message.name(),
                message.name()
            ));
        }
        let create = format!("Create{}", message.name());
        let list = format!("List{}", upper_first(&plural));
        let mut service = None;
        let mut list_has_parent = false;
        for candidate in pool.services() {
            if candidate.package_name() != "flotilla.v1" {
                continue;
            }
            for method in candidate.methods() {
                if method.name() == create {
                    service = Some(candidate.name().to_string());
                }
                if method.name() == list {
                    list_has_parent = method.input().get_field_by_name("parent").is_some();
                }
            }
        }
        let service = service.ok_or_else(|| format!("{}: no {create} RPC", message.name()))?;
        kinds.push(Decl {
            message: message.name().to_string(),
            pattern,
            pairs,
            singular,
            plural,
            parent: None,
            service,
            list_has_parent,
        });
    }
    // The parent: the kind whose pairs are the longest proper prefix of this one's.
    let snapshot = kinds.clone();
    for kind in &mut kinds {
        kind.parent = snapshot
            .iter()
            .enumerate()
            .filter(|(_, other)| {
                other.pairs.len() < kind.pairs.len() && kind.pairs.starts_with(&other.pairs)
            })
            .max_by_key(|(_, other)| other.pairs.len())
            .map(|(index, _)| index);
    }
    Ok(kinds)
}

fn quoted(items: impl IntoIterator<Item = String>) -> String {
    items
        .into_iter()
        .map(|item| format!("{item:?}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `pub static {KIND}: Kind` items and `KINDS`.
pub fn statics(kinds: &[Decl]) -> String {
    let mut out =
        String::from("// Generated by build.rs from the proto's resource declarations.\n");
    for kind in kinds {
        let own = kind.own_pairs(kinds);
        let _ = writeln!(
            out,
            "/// `{pattern}`\npub static {name}: Kind = Kind {{ type_name: \"flotilla.v1.{message}\", \
             message: \"{message}\", human: {human:?}, pattern: {pattern:?}, collections: &[{collections}], \
             parent_pairs: {parent_pairs}, parent: {parent}, \
             id_fields: &[{ids}], field: {field:?}, list_field: {list_field:?}, \
             plural: {plural:?}, table: {table:?}, service: {service:?}, list_scope: {scope} }};",
            pattern = kind.pattern,
            name = snake(&kind.message).to_ascii_uppercase(),
            message = kind.message,
            human = snake(&kind.singular).replace('_', " "),
            collections = quoted(kind.pairs.iter().map(|(c, _)| c.clone())),
            parent_pairs = kind.parent_pairs(kinds),
            parent = kind.parent.map_or("None".to_string(), |p| format!(
                "Some(&{})",
                snake(&kinds[p].message).to_ascii_uppercase()
            )),
            ids = quoted(own.iter().map(|(_, v)| format!("{v}_id"))),
            field = snake(&kind.singular),
            list_field = snake(&kind.plural),
            plural = upper_first(&kind.plural),
            table = snake(&kind.plural),
            service = kind.service,
            scope = if kind.list_has_parent {
                "Some(\"parent\")"
            } else {
                "None"
            },
        );
    }
    let _ = writeln!(
        out,
        "/// Every declared kind, in the order of the proto files.\npub static KINDS: &[&Kind] = &[{}];",
        kinds
            .iter()
            .map(|k| format!("&{}", snake(&k.message).to_ascii_uppercase()))
            .collect::<Vec<_>>()
            .join(", ")
    );
    out
}

/// What a name builder of `kind` takes: the ids of every pair when the kind is
/// top-level or a child of a top-level kind (`cluster(provider, cluster)`); else its
/// parent's name and its own ids (`app(composite_app, app)`).
fn builder_args(kind: &Decl, all: &[Decl]) -> (Option<String>, Vec<String>) {
    if kind.parent_pairs(all) <= 1 {
        (None, kind.pairs.iter().map(|(_, v)| v.clone()).collect())
    } else {
        let parent = &all[kind.parent.expect("nested")];
        (
            Some(snake(&parent.singular)),
            kind.own_pairs(all).iter().map(|(_, v)| v.clone()).collect(),
        )
    }
}

/// The `(collection, variable)` pairs a builder appends to its parent argument (all of
/// them when it takes none).
fn builder_pairs<'a>(
    kind: &'a Decl,
    all: &[Decl],
    parent: &Option<String>,
) -> &'a [(String, String)] {
    if parent.is_some() {
        kind.own_pairs(all)
    } else {
        &kind.pairs[..]
    }
}

/// The tail of the name after the builder's parent argument, as a format string over
/// `{variable}` placeholders.
fn builder_format(kind: &Decl, all: &[Decl], parent: &Option<String>) -> String {
    let tail = builder_pairs(kind, all, parent)
        .iter()
        .map(|(c, v)| format!("{c}/{{{v}}}"))
        .collect::<Vec<_>>()
        .join("/");
    match parent {
        Some(parent) => format!("{{{parent}}}/{tail}"),
        None => tail,
    }
}

/// Rust builders: plain ones and `checked` ones that validate each id first.
pub fn rust_names(kinds: &[Decl]) -> String {
    let mut plain =
        String::from("// Generated by build.rs from the proto's resource declarations.\n");
    let mut checked = String::new();
    for kind in kinds {
        let (parent, ids) = builder_args(kind, kinds);
        let function = snake(&kind.singular);
        let params: Vec<String> = parent
            .iter()
            .chain(&ids)
            .map(|a| format!("{a}: &str"))
            .collect();
        let format = builder_format(kind, kinds, &parent);
        let _ = writeln!(
            plain,
            "/// `{}`\npub fn {function}({}) -> String {{\n    format!(\"{format}\")\n}}\n",
            kind.pattern,
            params.join(", ")
        );
        let args: Vec<String> = parent
            .iter()
            .cloned()
            .chain(ids.iter().map(|id| format!("check_id({id})?")))
            .collect();
        let _ = writeln!(
            checked,
            "    /// `{}`\n    pub fn {function}({}) -> Result<String, InvalidId> {{\n        Ok(super::{function}({}))\n    }}\n",
            kind.pattern,
            params.join(", "),
            args.join(", ")
        );
    }
    format!(
        "{plain}/// The same builders, validating every id they are given.\npub mod checked {{\n    use super::{{InvalidId, check_id}};\n\n{checked}}}\n"
    )
}

/// Python builders (`flotilla/names.py`): every id validated.
pub fn python_names(kinds: &[Decl]) -> String {
    let mut out = String::from(PYTHON_HEADER);
    for kind in kinds {
        let (parent, ids) = builder_args(kind, kinds);
        let params: Vec<String> = parent
            .iter()
            .map(|p| format!("{p}_name: str"))
            .chain(ids.iter().map(|id| format!("{id}_id: str")))
            .collect();
        let mut body = builder_format(kind, kinds, &parent);
        if let Some(parent) = &parent {
            body = body.replace(&format!("{{{parent}}}"), &format!("{{{parent}_name}}"));
        }
        for id in &ids {
            body = body.replace(&format!("{{{id}}}"), &format!("{{check_id({id}_id)}}"));
        }
        let _ = write!(
            out,
            "\n\ndef {}({}) -> str:\n    \"\"\"``{}``\"\"\"\n    return f\"{body}\"\n",
            snake(&kind.singular),
            params.join(", "),
            kind.pattern
        );
    }
    out
}

/// TypeScript builders (`src/names.ts`): every id validated.
pub fn typescript_names(kinds: &[Decl]) -> String {
    let mut out = String::from(TYPESCRIPT_HEADER);
    for kind in kinds {
        let (parent, ids) = builder_args(kind, kinds);
        let params: Vec<String> = parent
            .iter()
            .map(|p| format!("{}Name: string", lower_camel(p)))
            .chain(
                ids.iter()
                    .map(|id| format!("{}Id: string", lower_camel(id))),
            )
            .collect();
        let mut body = builder_format(kind, kinds, &parent);
        if let Some(parent) = &parent {
            body = body.replace(
                &format!("{{{parent}}}"),
                &format!("${{{}Name}}", lower_camel(parent)),
            );
        }
        for id in &ids {
            body = body.replace(
                &format!("{{{id}}}"),
                &format!("${{checkId({}Id)}}", lower_camel(id)),
            );
        }
        let _ = write!(
            out,
            "\n/** `{}` */\nexport const {} = ({}): string =>\n  `{body}`;\n",
            kind.pattern,
            kind.singular,
            params.join(", ")
        );
    }
    out
}

/// Go builders and checks (`client/go/names/names.go`): a builder validates its parent
/// name and every id and returns `(string, error)`; `Check{Kind}` validates a whole name.
pub fn go_names(kinds: &[Decl]) -> String {
    let mut out = String::from(GO_HEADER);
    for kind in kinds {
        let (parent, ids) = builder_args(kind, kinds);
        let function = upper_first(&kind.singular);
        // "composite app", with its article.
        let words = snake(&kind.singular).replace('_', " ");
        let article = if words.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        let params: Vec<String> = parent
            .iter()
            .map(|p| format!("{}Name", lower_camel(p)))
            .chain(ids.iter().map(|id| format!("{}ID", lower_camel(id))))
            .collect();
        let segments: Vec<String> = builder_pairs(kind, kinds, &parent)
            .iter()
            .map(|(collection, id)| format!("\"{collection}\", {}ID", lower_camel(id)))
            .collect();
        let base = match &parent {
            Some(p) => format!(
                "{0}Name, Check{1}",
                lower_camel(p),
                upper_first(&lower_camel(p))
            ),
            None => "\"\", nil".to_string(),
        };
        let collections: Vec<String> = kind.pairs.iter().map(|(c, _)| format!("\"{c}\"")).collect();
        let _ = write!(
            out,
            "\n// {function} builds the name of {article} {words}, `{pattern}`.\n\
             func {function}({params} string) (string, error) {{\n\
             \treturn build({base}, {segments})\n}}\n\n\
             // Check{function} reports whether name is the name of {article} {words}, `{pattern}`.\n\
             func Check{function}(name string) error {{\n\
             \treturn check(name, \"{article} {words}\", {collections})\n}}\n",
            pattern = kind.pattern,
            params = params.join(", "),
            segments = segments.join(", "),
            collections = collections.join(", "),
        );
    }
    out
}

const GO_HEADER: &str = r#"// Code generated by scripts/gen-clients.sh from proto/ (the kinds' resource
// declarations). DO NOT EDIT.

// Package names builds and checks Flotilla resource names (AIP-122 paths), as the
// server does: every id is an RFC 1123 label, 1-63 characters of [a-z0-9-] starting and
// ending with a letter or digit. A bad id or name is an error before any call is made.
//
//	group, err := names.DeploymentIntentGroup(app, "prod")
//	group := names.Must(names.DeploymentIntentGroup(app, "prod")) // panics instead
package names

import (
	"fmt"
	"regexp"
	"strings"
)

var label = regexp.MustCompile(`^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$`)

// CheckID reports whether id is a valid id: an RFC 1123 label.
func CheckID(id string) error {
	if !label.MatchString(id) {
		return fmt.Errorf("%q is not a valid id: 1-63 characters of [a-z0-9-], starting and ending with a letter or digit", id)
	}
	return nil
}

// Must returns name, and panics if err is not nil: for names known to be valid.
func Must(name string, err error) string {
	if err != nil {
		panic(err)
	}
	return name
}

// build checks parent (with checkParent) and every id of the (collection, id) pairs,
// and appends the pairs to parent.
func build(parent string, checkParent func(string) error, pairs ...string) (string, error) {
	var b strings.Builder
	if checkParent != nil {
		if err := checkParent(parent); err != nil {
			return "", err
		}
		b.WriteString(parent)
	}
	for i := 0; i+1 < len(pairs); i += 2 {
		if err := CheckID(pairs[i+1]); err != nil {
			return "", err
		}
		if b.Len() > 0 {
			b.WriteByte('/')
		}
		b.WriteString(pairs[i] + "/" + pairs[i+1])
	}
	return b.String(), nil
}

// check reports whether name is `collections[0]/{id}/collections[1]/{id}/...`.
func check(name, kind string, collections ...string) error {
	segments := strings.Split(name, "/")
	if len(segments) != 2*len(collections) {
		return fmt.Errorf("%q is not the name of %s: want %d segments, got %d", name, kind, 2*len(collections), len(segments))
	}
	for i, collection := range collections {
		if segments[2*i] != collection {
			return fmt.Errorf("%q is not the name of %s: segment %d is %q, want %q", name, kind, 2*i+1, segments[2*i], collection)
		}
		if err := CheckID(segments[2*i+1]); err != nil {
			return fmt.Errorf("%q is not the name of %s: %w", name, kind, err)
		}
	}
	return nil
}
"#;

const PYTHON_HEADER: &str = r#"# Generated from proto/ by scripts/gen-clients.sh (the kinds' resource declarations);
# do not edit.
"""Validated builders of Flotilla resource names (AIP-122 paths).

Each id must be an RFC 1123 label, as the server requires: 1-63 characters of
``[a-z0-9-]``, starting and ending with a letter or digit. A bad id raises
``ValueError`` before any call is made.
"""

from __future__ import annotations

import re

_LABEL = re.compile(r"^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$")


def check_id(id_: str) -> str:
    """Returns ``id_`` if it is a valid id, else raises ``ValueError`` saying why."""
    if not _LABEL.match(id_):
        raise ValueError(
            f"{id_!r} is not a valid id: 1-63 characters of [a-z0-9-], "
            "starting and ending with a letter or digit"
        )
    return id_
"#;

const TYPESCRIPT_HEADER: &str = r#"// Generated from proto/ by scripts/gen-clients.sh (the kinds' resource declarations);
// do not edit.
// Validated builders of Flotilla resource names (AIP-122 paths). Each id must be an
// RFC 1123 label, as the server requires; a bad id throws before any call is made.

const LABEL = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

/** Returns `id` if it is a valid id (1-63 chars of [a-z0-9-], alphanumeric at both ends). */
export function checkId(id: string): string {
  if (!LABEL.test(id)) {
    throw new RangeError(
      `${JSON.stringify(id)} is not a valid id: 1-63 characters of [a-z0-9-], starting and ending with a letter or digit`,
    );
  }
  return id;
}
"#;
