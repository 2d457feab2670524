//! The `resources` of a ResourceStatus written straight from a status tree page.
//!
//! Building `pb::AppResources` messages for a 10,000-entry page allocates five
//! strings per entry only for prost to copy them into the buffer and drop them; this
//! writes the same bytes from the tree's strings. Fields are written in tag order with
//! proto3 presence exactly as prost writes them (the tests compare the bytes with
//! prost's own encoding of the same messages).

use prost::bytes::BufMut;
use prost::encoding::{WireType, encode_key, encode_varint, encoded_len_varint, key_len};

use super::convert::{
    cluster_id_and_provider, cluster_status_to_proto, readiness_to_proto, rsync_status_to_proto,
};
use crate::app::status::tree::{EntryRef, TreePage};

/// `ResourceStatus.resources`.
const RESOURCES: u32 = 11;
/// `AppResources.app_name`, `AppResources.clusters`.
const APP_NAME: u32 = 1;
const APP_CLUSTERS: u32 = 2;
/// `ClusterResources.name`, `.cluster_provider`, `.resources`.
const CLUSTER_NAME: u32 = 1;
const CLUSTER_PROVIDER: u32 = 2;
const CLUSTER_RESOURCES: u32 = 3;
/// `ResourceStatusEntry` fields.
const ENTRY_GVK: u32 = 1;
const ENTRY_NAME: u32 = 2;
const ENTRY_NAMESPACE: u32 = 3;
const ENTRY_RSYNC: u32 = 7;
const ENTRY_CLUSTER_STATUS: u32 = 8;
const ENTRY_READINESS: u32 = 9;
/// `GroupVersionKind` fields.
const GVK_GROUP: u32 = 1;
const GVK_VERSION: u32 = 2;
const GVK_KIND: u32 = 3;

/// Appends `page` as repeated `ResourceStatus.resources` (field 11) to `buf`: one
/// AppResources per run of entries of an app, one ClusterResources per run of a cluster
/// within it, as `status_api` groups SQL pages.
pub fn encode_resources(page: &TreePage, buf: &mut Vec<u8>) {
    // First pass: the lengths every length prefix needs.
    let mut entry_lens = Vec::with_capacity(page.len());
    let mut groups: Vec<Group<'_>> = Vec::new();
    for entry in page.entries() {
        let len = entry_len(&entry);
        entry_lens.push(len);
        let field = message_len(CLUSTER_RESOURCES, len);
        match groups.last_mut() {
            Some(g) if g.app_id == entry.app_id && g.cluster_id == entry.cluster_id => {
                g.entries += 1;
                g.cluster_len += field;
            }
            last => {
                let starts_app = last.is_none_or(|g| g.app_id != entry.app_id);
                let (name, provider) = cluster_id_and_provider(entry.cluster);
                groups.push(Group {
                    app_id: entry.app_id,
                    cluster_id: entry.cluster_id,
                    app: entry.app,
                    name,
                    provider,
                    starts_app,
                    entries: 1,
                    cluster_len: str_len(CLUSTER_NAME, name)
                        + str_len(CLUSTER_PROVIDER, provider)
                        + field,
                    app_len: 0,
                });
            }
        }
    }
    // Each app's body, kept on the app's first group.
    let mut total = 0;
    let mut app = 0;
    for i in 0..groups.len() {
        if groups[i].starts_app {
            app = i;
            groups[i].app_len = str_len(APP_NAME, groups[i].app);
        }
        groups[app].app_len += message_len(APP_CLUSTERS, groups[i].cluster_len);
    }
    for g in groups.iter().filter(|g| g.starts_app) {
        total += message_len(RESOURCES, g.app_len);
    }
    // Second pass: the bytes.
    buf.reserve(total);
    let mut entries = page.entries().zip(entry_lens);
    for g in &groups {
        if g.starts_app {
            put_len(RESOURCES, g.app_len, buf);
            put_str(APP_NAME, g.app, buf);
        }
        put_len(APP_CLUSTERS, g.cluster_len, buf);
        put_str(CLUSTER_NAME, g.name, buf);
        put_str(CLUSTER_PROVIDER, g.provider, buf);
        for (entry, len) in entries.by_ref().take(g.entries) {
            put_len(CLUSTER_RESOURCES, len, buf);
            put_entry(&entry, buf);
        }
    }
}

/// A run of entries of one app and cluster.
struct Group<'a> {
    app_id: u32,
    cluster_id: u32,
    app: &'a str,
    name: &'a str,
    provider: &'a str,
    /// The first group of its app (a new AppResources starts here).
    starts_app: bool,
    entries: usize,
    /// The ClusterResources body.
    cluster_len: usize,
    /// On the first group of an app: the AppResources body; else 0.
    app_len: usize,
}

fn gvk_len(e: &EntryRef<'_>) -> usize {
    str_len(GVK_GROUP, e.group) + str_len(GVK_VERSION, e.version) + str_len(GVK_KIND, e.kind)
}

fn entry_len(e: &EntryRef<'_>) -> usize {
    message_len(ENTRY_GVK, gvk_len(e))
        + str_len(ENTRY_NAME, e.name)
        + str_len(ENTRY_NAMESPACE, e.namespace)
        + enum_len(ENTRY_RSYNC, rsync_status_to_proto(e.rsync_status))
        + enum_len(
            ENTRY_CLUSTER_STATUS,
            cluster_status_to_proto(e.cluster_status),
        )
        + enum_len(ENTRY_READINESS, readiness_to_proto(e.readiness))
}

fn put_entry(e: &EntryRef<'_>, buf: &mut Vec<u8>) {
    put_len(ENTRY_GVK, gvk_len(e), buf);
    put_str(GVK_GROUP, e.group, buf);
    put_str(GVK_VERSION, e.version, buf);
    put_str(GVK_KIND, e.kind, buf);
    put_str(ENTRY_NAME, e.name, buf);
    put_str(ENTRY_NAMESPACE, e.namespace, buf);
    put_enum(ENTRY_RSYNC, rsync_status_to_proto(e.rsync_status), buf);
    put_enum(
        ENTRY_CLUSTER_STATUS,
        cluster_status_to_proto(e.cluster_status),
        buf,
    );
    put_enum(ENTRY_READINESS, readiness_to_proto(e.readiness), buf);
}

/// A length-delimited field with a `body`-byte payload (written even when empty, as
/// prost writes a set message field).
fn message_len(tag: u32, body: usize) -> usize {
    key_len(tag) + encoded_len_varint(body as u64) + body
}

/// A proto3 string field: absent when empty.
fn str_len(tag: u32, s: &str) -> usize {
    if s.is_empty() {
        0
    } else {
        message_len(tag, s.len())
    }
}

/// A proto3 enum field: absent when zero.
fn enum_len(tag: u32, value: i32) -> usize {
    if value == 0 {
        0
    } else {
        key_len(tag) + encoded_len_varint(value as u64)
    }
}

fn put_len(tag: u32, body: usize, buf: &mut Vec<u8>) {
    encode_key(tag, WireType::LengthDelimited, buf);
    encode_varint(body as u64, buf);
}

fn put_str(tag: u32, s: &str, buf: &mut Vec<u8>) {
    if !s.is_empty() {
        put_len(tag, s.len(), buf);
        buf.put_slice(s.as_bytes());
    }
}

fn put_enum(tag: u32, value: i32, buf: &mut Vec<u8>) {
    if value != 0 {
        encode_key(tag, WireType::Varint, buf);
        encode_varint(value as u64, buf);
    }
}

#[cfg(test)]
mod tests {
    use flotilla_api::v1 as pb;
    use prost::Message;

    use super::*;
    use crate::app::status::tree::Tree;
    use crate::app::status::{Output, StatusEntry, StatusQuery, StatusResult};
    use crate::domain::names::{ClusterName, DEPLOYMENT_INTENT_GROUP, ResourceName};
    use crate::domain::readiness::{ClusterStatus, Readiness};
    use crate::domain::status::Counts;
    use crate::domain::status::RsyncStatus;
    use crate::ids::InstanceId;
    use crate::store::rsync_resource::ResourceFilter;
    use crate::store::rsync_resource::ResourceKey;
    use crate::wire::convert::status_to_proto;

    fn entry(
        app: &str,
        cluster: &str,
        kind: &str,
        group: &str,
        name: &str,
        n: usize,
    ) -> StatusEntry {
        StatusEntry {
            key: ResourceKey {
                app: app.into(),
                cluster: ClusterName::of("edge", cluster),
                kind: kind.into(),
                group: group.into(),
                namespace: if n.is_multiple_of(3) {
                    String::new()
                } else {
                    "default".into()
                },
                name: name.into(),
            },
            version: "v1".into(),
            rsync_status: [
                None,
                Some(RsyncStatus::Pending),
                Some(RsyncStatus::Applied),
                Some(RsyncStatus::Failed),
                Some(RsyncStatus::Retrying),
                Some(RsyncStatus::Terminated),
                Some(RsyncStatus::Superseded),
            ][n % 7],
            cluster_status: [
                None,
                Some(ClusterStatus::Unknown),
                Some(ClusterStatus::NotPresent),
                Some(ClusterStatus::Present),
            ][n % 4],
            readiness: [Readiness::None, Readiness::Ready, Readiness::NotReady][n % 3],
            metadata: None,
            spec: None,
            status: None,
        }
    }

    /// Entries in key order over a few apps and clusters, with every enum value and
    /// empty and long strings.
    fn entries() -> Vec<StatusEntry> {
        let mut entries = Vec::new();
        let mut n = 0;
        for app in ["alpha", "beta", "gamma"] {
            for cluster in ["c1", "c2", "c3"] {
                for (kind, group) in [("ConfigMap", ""), ("Deployment", "apps")] {
                    for i in 0..5 {
                        n += 1;
                        let name = format!("{app}-{}-{i}", "x".repeat(n * 7 % 200));
                        entries.push(entry(app, cluster, kind, group, &name, n));
                    }
                }
            }
        }
        entries.sort_by(|a, b| a.key.columns().cmp(&b.key.columns()));
        entries
    }

    /// The `resources` prost writes for `entries` grouped as SQL pages are.
    fn prost_bytes(entries: Vec<StatusEntry>) -> Vec<u8> {
        let owner = ResourceName::parse(
            &DEPLOYMENT_INTENT_GROUP,
            "name",
            "projects/p/compositeApps/ca/versions/v1/deploymentIntentGroups/d",
        )
        .unwrap();
        let result = StatusResult {
            owner,
            state: crate::domain::lifecycle::OwnerState::Group(
                crate::domain::lifecycle::DigState::Created,
            ),
            composite_profile: String::new(),
            instance: None,
            counts: Counts::new(),
            entries,
            tree_page: None,
            next: None,
            conditions: Vec::new(),
        };
        let message = status_to_proto(result, Output::All, String::new());
        pb::ResourceStatus {
            resources: message.resources,
            ..Default::default()
        }
        .encode_to_vec()
    }

    #[test]
    fn tree_pages_are_written_as_prost_writes_them() {
        let all = entries();
        let tree = Tree::of_entries(InstanceId::new(), all.clone());
        let filters = [
            ResourceFilter::default(),
            ResourceFilter {
                apps: vec!["beta".into()],
                ..Default::default()
            },
            ResourceFilter {
                clusters: vec!["clusterProviders/edge/clusters/c2".into()],
                ..Default::default()
            },
        ];
        for filter in &filters {
            for page_size in [1, 4, 7, 1000] {
                let mut after: Option<ResourceKey> = None;
                let mut pages = 0;
                loop {
                    let query = StatusQuery::all_page(None, page_size, after.clone());
                    let (page, next) = tree.page(filter, &query);
                    let expected: Vec<StatusEntry> = all
                        .iter()
                        .filter(|e| {
                            after.as_ref().is_none_or(|a| e.key.columns() > a.columns())
                                && filter.matches(&e.key.app, &e.key.cluster, &e.key.name)
                        })
                        .take(page_size)
                        .cloned()
                        .collect();
                    assert_eq!(page.len(), expected.len());
                    let mut bytes = Vec::new();
                    encode_resources(&page, &mut bytes);
                    assert_eq!(
                        bytes,
                        prost_bytes(expected.clone()),
                        "{filter:?} {page_size}"
                    );
                    pages += 1;
                    match next {
                        Some(key) => {
                            assert_eq!(Some(&key), expected.last().map(|e| &e.key));
                            after = Some(key);
                        }
                        None => break,
                    }
                }
                assert!(pages > 1 || page_size == 1000);
            }
        }
    }
}
