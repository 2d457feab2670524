//! The lifecycle resource kinds, as declarations: how a kind is named, where it lives
//! and what its RPCs and fields are called. Everything else (get, list, create,
//! update, delete, apply) is one generic path over these.

/// One resource kind of LifecycleService.
#[derive(Debug)]
pub struct Kind {
    /// The kind in documents and messages, e.g. `CompositeApp`.
    pub name: &'static str,
    /// What users type: the singular, plural and short forms.
    pub aliases: &'static [&'static str],
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

pub const KINDS: &[Kind] = &[
    Kind {
        name: "Project",
        aliases: &["project", "projects", "proj"],
        segments: &["projects"],
        id_fields: &["project_id"],
        field: "project",
        list_field: "projects",
        plural: "Projects",
        parent: None,
        service: "LifecycleService",
        list_scope: None,
        appliable: true,
    },
    Kind {
        name: "CompositeApp",
        aliases: &["compositeapp", "compositeapps", "ca"],
        segments: &["compositeApps", "versions"],
        id_fields: &["composite_app_id", "version_id"],
        field: "composite_app",
        list_field: "composite_apps",
        plural: "CompositeApps",
        parent: Some("Project"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "App",
        aliases: &["app", "apps"],
        segments: &["apps"],
        id_fields: &["app_id"],
        field: "app",
        list_field: "apps",
        plural: "Apps",
        parent: Some("CompositeApp"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "CompositeProfile",
        aliases: &["compositeprofile", "compositeprofiles", "cp"],
        segments: &["compositeProfiles"],
        id_fields: &["composite_profile_id"],
        field: "composite_profile",
        list_field: "composite_profiles",
        plural: "CompositeProfiles",
        parent: Some("CompositeApp"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "AppProfile",
        aliases: &["appprofile", "appprofiles", "ap"],
        segments: &["appProfiles"],
        id_fields: &["app_profile_id"],
        field: "app_profile",
        list_field: "app_profiles",
        plural: "AppProfiles",
        parent: Some("CompositeProfile"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "DeploymentIntentGroup",
        aliases: &[
            "deploymentintentgroup",
            "deploymentintentgroups",
            "group",
            "groups",
            "dig",
            "digs",
        ],
        segments: &["deploymentIntentGroups"],
        id_fields: &["deployment_intent_group_id"],
        field: "deployment_intent_group",
        list_field: "deployment_intent_groups",
        plural: "DeploymentIntentGroups",
        parent: Some("CompositeApp"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "PlacementIntent",
        aliases: &["placementintent", "placementintents", "pi"],
        segments: &["placementIntents"],
        id_fields: &["placement_intent_id"],
        field: "placement_intent",
        list_field: "placement_intents",
        plural: "PlacementIntents",
        parent: Some("DeploymentIntentGroup"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "ClusterProvider",
        aliases: &[
            "clusterprovider",
            "clusterproviders",
            "provider",
            "providers",
        ],
        segments: &["clusterProviders"],
        id_fields: &["cluster_provider_id"],
        field: "cluster_provider",
        list_field: "cluster_providers",
        plural: "ClusterProviders",
        parent: None,
        service: "LifecycleService",
        list_scope: None,
        appliable: true,
    },
    Kind {
        name: "Cluster",
        aliases: &["cluster", "clusters"],
        segments: &["clusters"],
        id_fields: &["cluster_id"],
        field: "cluster",
        list_field: "clusters",
        plural: "Clusters",
        parent: Some("ClusterProvider"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "NetworkIntent",
        aliases: &["networkintent", "networkintents", "ni"],
        segments: &["networkIntents"],
        id_fields: &["network_intent_id"],
        field: "network_intent",
        list_field: "network_intents",
        plural: "NetworkIntents",
        parent: Some("Cluster"),
        service: "LifecycleService",
        list_scope: Some("parent"),
        appliable: true,
    },
    Kind {
        name: "Action",
        aliases: &["action", "actions"],
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
        aliases: &["containercluster", "containerclusters", "cc"],
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

/// The kind `text` names (a kind name or an alias, any case).
pub fn find(text: &str) -> Option<&'static Kind> {
    let lower = text.to_ascii_lowercase();
    KINDS
        .iter()
        .find(|k| k.name.eq_ignore_ascii_case(&lower) || k.aliases.contains(&lower.as_str()))
}

/// Every kind name and alias, for help and errors.
pub fn names() -> String {
    KINDS
        .iter()
        .map(|k| k.aliases[1])
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
