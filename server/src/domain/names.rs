//! Resource names (AIP-122): `collection/id` pairs. Each kind of resource has a fixed
//! pattern of collections; ids are RFC 1123 labels. A parsed [`ResourceName`] always
//! matches its kind's pattern, so code past the API boundary never re-validates names.

use std::fmt;

use crate::error::FieldViolation;

// The kinds are declared once, in the proto (see `flotilla_api::kinds`).
pub use flotilla_api::kinds::*;

/// The largest length of an id (RFC 1123 label).
pub const MAX_ID_LEN: usize = 63;

/// Checks that `id` is an RFC 1123 label: 1-63 chars of `[a-z0-9-]`, starting and
/// ending with an alphanumeric character.
pub fn validate_id(id: &str) -> Result<(), String> {
    if id.is_empty() {
        return Err("must not be empty".into());
    }
    if id.len() > MAX_ID_LEN {
        return Err(format!(
            "must be at most {MAX_ID_LEN} characters, got {}",
            id.len()
        ));
    }
    let valid_char = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-';
    if let Some(bad) = id.chars().find(|c| !valid_char(*c)) {
        return Err(format!(
            "must be an RFC 1123 label ([a-z0-9-]); {bad:?} is not allowed"
        ));
    }
    if id.starts_with('-') || id.ends_with('-') {
        return Err("must start and end with a letter or digit".into());
    }
    Ok(())
}

/// A validated resource name of a known kind.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ResourceName {
    kind: &'static Kind,
    ids: Vec<String>,
}

impl ResourceName {
    /// Parses `name` as a resource of `kind`; `field` names the request field in errors.
    pub fn parse(kind: &'static Kind, field: &str, name: &str) -> Result<Self, FieldViolation> {
        let expected = Self::pattern(kind);
        if name.is_empty() {
            return Err(FieldViolation::new(
                field,
                format!(
                    "{} {} name is required ({expected})",
                    article(kind.human),
                    kind.human
                ),
            ));
        }
        let not_a_name = || {
            let article = article(kind.human);
            let message = format!("{name:?} is not {article} {} name ({expected})", kind.human);
            FieldViolation::new(field, message)
        };
        let parts: Vec<&str> = name.split('/').collect();
        if parts.len() != kind.collections.len() * 2 {
            return Err(not_a_name());
        }
        let mut ids = Vec::with_capacity(kind.collections.len());
        for (pair, collection) in parts.chunks(2).zip(kind.collections) {
            if pair[0] != *collection {
                return Err(not_a_name());
            }
            validate_id(pair[1]).map_err(|why| {
                FieldViolation::new(field, format!("id {:?} in {name:?} {why}", pair[1]))
            })?;
            ids.push(pair[1].to_string());
        }
        Ok(Self { kind, ids })
    }

    /// Builds the name of a new child `id` of `parent` (which must be of the parent kind).
    pub fn child(
        kind: &'static Kind,
        parent: Option<&ResourceName>,
        new_ids: &[&str],
    ) -> ResourceName {
        let mut ids: Vec<String> = parent.map(|p| p.ids.clone()).unwrap_or_default();
        ids.extend(new_ids.iter().map(|id| id.to_string()));
        debug_assert_eq!(ids.len(), kind.collections.len());
        ResourceName { kind, ids }
    }

    fn pattern(kind: &Kind) -> &'static str {
        kind.pattern
    }

    pub fn kind(&self) -> &'static Kind {
        self.kind
    }

    /// The last id, e.g. the app id of an app name.
    pub fn id(&self) -> &str {
        self.ids.last().expect("names have at least one id")
    }

    /// The id at position `index` (0 = outermost).
    pub fn id_at(&self, index: usize) -> &str {
        &self.ids[index]
    }

    /// The parent's name as a string ("" for top-level kinds).
    pub fn parent(&self) -> String {
        self.prefix(self.kind.parent_pairs)
    }

    /// The name made of the first `pairs` (collection, id) pairs.
    pub fn prefix(&self, pairs: usize) -> String {
        self.kind.collections[..pairs]
            .iter()
            .zip(&self.ids)
            .map(|(c, id)| format!("{c}/{id}"))
            .collect::<Vec<_>>()
            .join("/")
    }

    /// The ancestor of `kind` (whose collections must be a prefix of ours).
    pub fn ancestor(&self, kind: &'static Kind) -> ResourceName {
        debug_assert!(self.kind.collections.starts_with(kind.collections));
        ResourceName {
            kind,
            ids: self.ids[..kind.collections.len()].to_vec(),
        }
    }
}

/// "a" or "an" before `noun` (kinds' human names: "an app", "a cluster").
fn article(noun: &str) -> &'static str {
    match noun.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

impl fmt::Display for ResourceName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.prefix(self.kind.collections.len()))
    }
}

/// A name as rows, keys, events and sessions carry it once the API boundary has
/// validated it: a string that the type system keeps apart from every other string.
/// It reads as `&str` (`Deref`, `Borrow`, `AsRef`), so lookups and formatting need no
/// conversion; making one from a string is explicit (`From`), at the boundary or in the
/// store's row decoding.
macro_rules! name_type {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(
            Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord,
            serde::Serialize, serde::Deserialize,
        )]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            pub fn as_str(&self) -> &str {
                &self.0
            }

            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl std::ops::Deref for $name {
            type Target = str;

            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl std::borrow::Borrow<str> for $name {
            fn borrow(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl From<String> for $name {
            fn from(name: String) -> Self {
                $name(name)
            }
        }

        impl From<&str> for $name {
            fn from(name: &str) -> Self {
                $name(name.to_owned())
            }
        }

        impl From<$name> for String {
            fn from(name: $name) -> String {
                name.0
            }
        }

        impl From<&ResourceName> for $name {
            fn from(name: &ResourceName) -> Self {
                $name(name.to_string())
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<String> for $name {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
    };
}

name_type! {
    /// A cluster's full resource name, `clusterProviders/{provider}/clusters/{cluster}`:
    /// what placements, rendered resources, status rows, agent sessions and watch events
    /// key a cluster by.
    ClusterName
}

impl ClusterName {
    /// The name of cluster `cluster` of provider `provider` (both ids).
    pub fn of(provider: &str, cluster: &str) -> Self {
        ClusterName(format!("clusterProviders/{provider}/clusters/{cluster}"))
    }

    /// Whether `wanted` names this cluster: its full name, or its id alone (filters
    /// accept either).
    pub fn is_named(&self, wanted: &str) -> bool {
        names_cluster(&self.0, wanted)
    }
}

/// Whether `wanted` names the cluster of full name `cluster`: that name, or the
/// cluster's id alone (filters accept either).
pub fn names_cluster(cluster: &str, wanted: &str) -> bool {
    cluster == wanted || cluster.rsplit('/').next() == Some(wanted)
}

/// What a Kubernetes object name (an RFC 1123 subdomain) must be.
const SUBDOMAIN_RULE: &str =
    "must be a Kubernetes name: lower-case letters, digits, '-' and '.', at most 253 characters";

/// `value` if it is an RFC 1123 subdomain (a pod or node name), else why not.
fn subdomain(value: &str) -> Result<String, &'static str> {
    if value.is_empty() {
        return Err("is required");
    }
    let valid = value.len() <= 253 && value.split('.').all(|label| validate_id(label).is_ok());
    if valid {
        Ok(value.to_owned())
    } else {
        Err(SUBDOMAIN_RULE)
    }
}

name_type! {
    /// A Kubernetes node's name (an RFC 1123 subdomain), as a member cluster's agent
    /// reports it: where a node action runs, and the node a pod action's pod runs on.
    NodeName
}

impl NodeName {
    /// A node name of a request, or why it is not one.
    pub fn parse(value: &str) -> Result<Self, &'static str> {
        subdomain(value).map(NodeName)
    }
}

name_type! {
    /// A Kubernetes pod's name (an RFC 1123 subdomain).
    PodName
}

impl PodName {
    /// A pod name of a request, or why it is not one.
    pub fn parse(value: &str) -> Result<Self, &'static str> {
        subdomain(value).map(PodName)
    }
}

name_type! {
    /// A Kubernetes namespace (an RFC 1123 label). Actions keep the default namespace
    /// as "", however the caller spelled it.
    Namespace
}

impl Namespace {
    /// A namespace of a request ("" and "default" are the default namespace), or why it
    /// is not one.
    pub fn parse(value: &str) -> Result<Self, &'static str> {
        if value.is_empty() || value == super::manifest::DEFAULT_NAMESPACE {
            return Ok(Namespace(String::new()));
        }
        if validate_id(value).is_err() {
            return Err(
                "must be a Kubernetes namespace: an RFC 1123 label (lower-case letters, digits and '-', at most 63 characters)",
            );
        }
        Ok(Namespace(value.to_owned()))
    }

    /// The namespace as people and API servers spell it ("default" for "").
    pub fn spelled(&self) -> &str {
        if self.0.is_empty() {
            super::manifest::DEFAULT_NAMESPACE
        } else {
            &self.0
        }
    }
}

/// One app of an instance on one cluster: what an agent receives as a bundle and
/// reports on. Ordered by cluster, then app.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct DeploymentKey {
    pub cluster: ClusterName,
    pub app: String,
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn kubernetes_names_parse_as_the_api_server_would() {
        assert_eq!(Namespace::parse("").unwrap(), Namespace::default());
        assert_eq!(Namespace::parse("default").unwrap(), Namespace::default());
        assert_eq!(Namespace::parse("default").unwrap().spelled(), "default");
        assert_eq!(
            Namespace::parse("kube-system").unwrap().spelled(),
            "kube-system"
        );
        for bad in ["kube.system", "Default", "-a", "a-", &"n".repeat(64)] {
            assert!(Namespace::parse(bad).is_err(), "{bad:?}");
        }
        let long = format!("{}.{}", "a".repeat(63), "b".repeat(63));
        for good in ["node-0", "ip-10-0-0-1.ec2.internal", long.as_str()] {
            assert_eq!(NodeName::parse(good).unwrap(), good);
            assert_eq!(PodName::parse(good).unwrap(), good);
        }
        let too_long = vec!["a".repeat(63); 4].join(".") + ".bc";
        for bad in ["", "Node_0", "a..b", ".a", "a.", too_long.as_str()] {
            assert!(NodeName::parse(bad).is_err(), "{bad:?}");
            assert!(PodName::parse(bad).is_err(), "{bad:?}");
        }
        assert_eq!(PodName::parse(""), Err("is required"));
    }

    #[test]
    fn a_wrong_name_is_told_the_declared_pattern() {
        let why = ResourceName::parse(&CLUSTER_KV_PAIR, "name", "x/y").unwrap_err();
        assert_eq!(
            why.description,
            "\"x/y\" is not a cluster kv pair name \
             (clusterProviders/{cluster_provider}/clusters/{cluster}/kvPairs/{kv_pair})"
        );
        let why = ResourceName::parse(&APP, "parent", "").unwrap_err();
        assert!(
            why.description
                .starts_with("an app name is required (projects/{project}/"),
            "{}",
            why.description
        );
        for kind in KINDS {
            assert_eq!(
                kind.pattern.split('/').step_by(2).collect::<Vec<_>>(),
                kind.collections,
                "{}",
                kind.message
            );
        }
    }

    #[test]
    fn parses_and_prints_names() {
        let name = ResourceName::parse(
            &APP,
            "name",
            "projects/p1/compositeApps/ca/versions/v1/apps/collectd",
        )
        .unwrap();
        assert_eq!(name.id(), "collectd");
        assert_eq!(name.parent(), "projects/p1/compositeApps/ca/versions/v1");
        assert_eq!(
            name.to_string(),
            "projects/p1/compositeApps/ca/versions/v1/apps/collectd"
        );
        assert_eq!(name.ancestor(&PROJECT).to_string(), "projects/p1");
    }

    #[test]
    fn rejects_wrong_collections_and_ids() {
        for bad in [
            "",
            "projects",
            "projects/",
            "projects/P1",
            "project/p1",
            "projects/p1/extra",
            "projects/-p",
            "projects/p_1",
            "clusterProviders/a",
        ] {
            assert!(ResourceName::parse(&PROJECT, "name", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn id_length_limit() {
        assert!(validate_id(&"a".repeat(63)).is_ok());
        assert!(validate_id(&"a".repeat(64)).is_err());
    }

    proptest! {
        #[test]
        fn valid_labels_are_accepted(id in "[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?") {
            prop_assert!(validate_id(&id).is_ok());
            let name = format!("clusterProviders/{id}");
            let parsed = ResourceName::parse(&CLUSTER_PROVIDER, "name", &name).unwrap();
            prop_assert_eq!(parsed.to_string(), name);
        }

        #[test]
        fn anything_else_is_rejected_without_panic(id in "\\PC{0,80}") {
            let ok = validate_id(&id).is_ok();
            let expected = !id.is_empty()
                && id.len() <= 63
                && id.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
                && !id.starts_with('-')
                && !id.ends_with('-');
            prop_assert_eq!(ok, expected);
        }
    }
}
