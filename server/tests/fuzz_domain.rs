//! Fuzzing of the parsers behind the API (issue 21, point 8), with proptest on stable
//! Rust: names, merge patches over manifests, label selectors, page tokens and resume
//! tokens take arbitrary input without panicking, and every refusal is an error value.
//! `PROPTEST_CASES=100000 cargo test -p flotilla-server --test store fuzz_domain::` runs it as
//! long as wanted (the default is proptest's 256 cases per property).

use flotilla_server::api::page::Paging;
use flotilla_server::domain::manifest::{check_document, identity, parse_manifests};
use flotilla_server::domain::names::{self, ResourceName};
use flotilla_server::domain::resources::{Labels, labels_match};
use flotilla_server::watch::token;
use proptest::prelude::*;
use serde_json::Value;

/// Arbitrary JSON, a few levels deep.
fn json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "\\PC{0,40}".prop_map(Value::String),
        prop_oneof![Just("Bad_Name/../x"), Just("web"), Just(""), Just("..")]
            .prop_map(|s| Value::String(s.into())),
    ];
    leaf.prop_recursive(4, 64, 8, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map(
                prop_oneof![
                    "[a-z]{1,8}",
                    Just("metadata".to_string()),
                    Just("name".to_string()),
                    Just("namespace".to_string()),
                    Just("kind".to_string()),
                ],
                inner,
                0..6
            )
            .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

fn labels() -> impl Strategy<Value = Labels> {
    prop::collection::btree_map("\\PC{0,20}", "\\PC{0,20}", 0..6)
}

proptest! {
    #[test]
    fn names_parse_or_refuse(text in "\\PC{0,200}", path in "[a-zA-Z0-9/._-]{0,120}") {
        for kind in names::KINDS.iter().copied() {
            for input in [&text, &path] {
                if let Ok(name) = ResourceName::parse(kind, "name", input) {
                    // What parses prints back as itself.
                    prop_assert_eq!(&name.to_string(), input);
                }
            }
        }
        let _ = names::validate_id(&text);
    }

    #[test]
    fn merge_patches_keep_documents_checkable(document in json(), patch in json()) {
        let mut merged = document;
        json_patch::merge(&mut merged, &patch);
        if check_document("d", &merged).is_empty() {
            let (_, namespace, name) = identity(&merged);
            prop_assert!(!name.is_empty());
            prop_assert!(!name.contains('/') && !namespace.contains('/'));
        }
    }

    #[test]
    fn manifests_parse_or_refuse(text in "\\PC{0,400}") {
        if let Ok(documents) = parse_manifests("m", &text) {
            for (i, document) in documents.iter().enumerate() {
                let _ = check_document(&format!("m[{i}]"), document);
            }
        }
    }

    #[test]
    fn label_selectors_match_without_panicking(selector in labels(), labels in labels()) {
        let matched = labels_match(&selector, &labels);
        // Every key of a matching selector is in the labels, with its value.
        if matched {
            for (key, value) in &selector {
                prop_assert_eq!(labels.get(key), Some(value));
            }
        }
        prop_assert!(labels_match(&Labels::new(), &labels));
    }

    #[test]
    fn page_tokens_decode_or_refuse(token in "\\PC{0,200}", size in any::<i32>()) {
        let _ = Paging::<String>::new("ListProjects:".into(), size, &token);
        let _ = Paging::<(String, String)>::new("scope".into(), size, &token);
    }

    #[test]
    fn resume_tokens_decode_or_refuse(token in "\\PC{0,200}", b64 in "[A-Za-z0-9_-]{0,120}") {
        for input in [&token, &b64] {
            if let Ok(position) = token::decode("clusterProviders/cp/clusters/c", input) {
                prop_assert!(position.revision >= 0 && position.sub >= 0);
            }
        }
    }
}
