//! The resource kinds the CLI handles: every kind declared in the proto (through
//! `flotilla_api::kinds`, so a new kind needs nothing here), plus actions and
//! container clusters, which have verbs instead of apply. Everything else (get, list,
//! create, update, delete, apply) is one generic path over these.

use std::sync::LazyLock;

/// One resource kind.
#[derive(Debug)]
pub struct Kind {
    /// The kind in documents and messages, e.g. `CompositeApp`.
    pub name: &'static str,
    /// What users type: the singular, the plural, then any short forms.
    pub aliases: Vec<String>,
    /// The collection segment(s) after the parent: `["compositeApps", "versions"]`
    /// means `{parent}/compositeApps/{id}/versions/{version}`.
    pub segments: &'static [&'static str],
    /// The id fields of the create request, one per segment.
    pub id_fields: &'static [&'static str],
    /// The resource field of create and update requests (snake_case of `name`).
    pub field: &'static str,
    /// The repeated field of the list response.
    pub list_field: &'static str,
    /// The plural in method names (`ListCompositeApps`).
    pub plural: &'static str,
    /// The parent kind; None for top-level kinds.
    pub parent: Option<&'static str>,
    /// The service serving the kind.
    pub service: &'static str,
    /// The list request's field that `--parent` fills (None: lists need no scope).
    pub list_scope: Option<&'static str>,
    /// Whether `apply -f` manages it (actions and container clusters have verbs).
    pub appliable: bool,
}

impl Kind {
    /// `name` as the API names it: a top-level kind's bare id (`tour`, as kubectl takes
    /// a name) becomes `projects/tour`; a full name, or a nested kind's, is unchanged
    /// (a nested kind's bare id says nothing of its parent).
    pub fn full_name(&self, name: &str) -> String {
        match (self.parent, self.segments) {
            (None, [collection]) if !name.contains('/') => format!("{collection}/{name}"),
            _ => name.to_string(),
        }
    }
}

/// Short forms users type, beyond every kind's singular and plural.
const SHORT_NAMES: &[(&str, &[&str])] = &[
    ("Project", &["proj"]),
    ("CompositeApp", &["ca"]),
    ("CompositeProfile", &["cp"]),
    ("AppProfile", &["ap"]),
    ("DeploymentIntentGroup", &["group", "groups", "dig", "digs"]),
    ("PlacementIntent", &["pi"]),
    ("ClusterProvider", &["provider", "providers"]),
    ("NetworkIntent", &["ni"]),
    ("ClusterKvPair", &["kv", "kvpair", "kvpairs"]),
    ("ContainerCluster", &["cc"]),
];

fn aliases(name: &str, plural: &str) -> Vec<String> {
    let short = SHORT_NAMES
        .iter()
        .filter(|(kind, _)| *kind == name)
        .flat_map(|(_, short)| short.iter().map(|s| s.to_string()));
    [name.to_ascii_lowercase(), plural.to_ascii_lowercase()]
        .into_iter()
        .chain(short)
        .collect()
}

/// Every kind: the declared ones in declaration order, then actions and container
/// clusters.
pub static KINDS: LazyLock<Vec<Kind>> = LazyLock::new(|| {
    let declared = flotilla_api::kinds::KINDS.iter().map(|k| Kind {
        name: k.message,
        aliases: aliases(k.message, k.plural),
        segments: k.own_collections(),
        id_fields: k.id_fields,
        field: k.field,
        list_field: k.list_field,
        plural: k.plural,
        parent: k.parent.map(|p| p.message),
        service: k.service,
        list_scope: k.list_scope,
        appliable: true,
    });
    let with_verbs = [
        Kind {
            name: "Action",
            aliases: aliases("Action", "Actions"),
            segments: &["actions"],
            id_fields: &[],
            field: "action",
            list_field: "actions",
            plural: "Actions",
            parent: None,
            service: "ActionService",
            list_scope: Some("cluster"),
            appliable: false,
        },
        Kind {
            name: "ContainerCluster",
            aliases: aliases("ContainerCluster", "ContainerClusters"),
            segments: &["containerClusters"],
            id_fields: &[],
            field: "container_cluster",
            list_field: "container_clusters",
            plural: "ContainerClusters",
            parent: None,
            service: "ContainerClusterService",
            list_scope: None,
            appliable: false,
        },
    ];
    declared.chain(with_verbs).collect()
});

/// The kind `text` names (a kind name or an alias, any case).
pub fn find(text: &str) -> Option<&'static Kind> {
    let lower = text.to_ascii_lowercase();
    KINDS
        .iter()
        .find(|k| k.name.eq_ignore_ascii_case(&lower) || k.aliases.contains(&lower))
}

/// Every kind name and alias, for help and errors.
pub fn names() -> String {
    KINDS
        .iter()
        .map(|k| k.aliases[1].as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Kind {
    /// Splits a resource name of this kind into its parent and its ids.
    pub fn split<'a>(&self, name: &'a str) -> Result<(&'a str, Vec<&'a str>), String> {
        let parts: Vec<&str> = name.split('/').collect();
        let n = self.segments.len() * 2;
        let bad = || {
            let pattern: String = self
                .segments
                .iter()
                .map(|s| format!("/{s}/{{id}}"))
                .collect();
            let parent = if self.parent.is_some() {
                "{parent}"
            } else {
                ""
            };
            format!(
                "{name:?} is not the name of a {}: expected {}{}",
                self.name,
                parent,
                if parent.is_empty() {
                    pattern.trim_start_matches('/').to_string()
                } else {
                    pattern
                }
            )
        };
        if parts.len() < n || (self.parent.is_none() && parts.len() != n) {
            return Err(bad());
        }
        let tail = &parts[parts.len() - n..];
        let mut ids = Vec::new();
        for (i, segment) in self.segments.iter().enumerate() {
            if tail[2 * i] != *segment || tail[2 * i + 1].is_empty() {
                return Err(bad());
            }
            ids.push(tail[2 * i + 1]);
        }
        let head = &parts[..parts.len() - n];
        let parent = if head.is_empty() {
            ""
        } else {
            // The first parts and the separators between them.
            &name[..head.iter().map(|p| p.len()).sum::<usize>() + head.len() - 1]
        };
        if self.parent.is_some() && parent.is_empty() {
            return Err(bad());
        }
        Ok((parent, ids))
    }

    /// The kind of a resource name: the kind whose segments end it.
    pub fn of_name(name: &str) -> Option<&'static Kind> {
        // Longest patterns first (CompositeApp's `compositeApps/{id}/versions/{v}`).
        let mut kinds: Vec<&Kind> = KINDS.iter().collect();
        kinds.sort_by_key(|k| std::cmp::Reverse(k.segments.len()));
        kinds.into_iter().find(|k| k.split(name).is_ok())
    }

    /// How deep in the dependency order the kind is (parents first).
    pub fn depth(&self) -> usize {
        match self.parent.and_then(find) {
            Some(parent) => parent.depth() + 1,
            None => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_split_into_parent_and_ids() {
        let ca = find("ca").unwrap();
        assert_eq!(
            ca.split("projects/p/compositeApps/web/versions/v1")
                .unwrap(),
            ("projects/p", vec!["web", "v1"])
        );
        let project = find("projects").unwrap();
        assert_eq!(project.split("projects/p").unwrap(), ("", vec!["p"]));
        assert!(project.split("projects/p/x/y").is_err());
        let group = find("dig").unwrap();
        let name = "projects/p/compositeApps/web/versions/v1/deploymentIntentGroups/prod";
        assert_eq!(
            group.split(name).unwrap(),
            ("projects/p/compositeApps/web/versions/v1", vec!["prod"])
        );
        assert_eq!(Kind::of_name(name).unwrap().name, "DeploymentIntentGroup");
        assert_eq!(
            Kind::of_name("projects/p/compositeApps/web/versions/v1")
                .unwrap()
                .name,
            "CompositeApp"
        );
        assert!(find("apps").unwrap().split("apps/x").is_err());
        assert_eq!(find("pi").unwrap().depth(), 3);
    }
}
