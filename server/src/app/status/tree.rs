//! In-memory status trees: the `all` status of an intent group's current instance,
//! kept in memory so paged reads of a large instance do not run two SQL range reads
//! and a merge per page.
//!
//! A tree is only ever served when it is exactly what SQL would answer: it is built
//! from reads that start after subscribing to the group's commit signal (bumped after
//! every commit that changes the group's status or lifecycle, the same signal the
//! summary cache and the watch feeds use), and it is valid only while that signal has
//! not moved. Any change makes it stale; queries then fall back to SQL until the
//! group's warmer has rebuilt it, which it does once the group has been quiet for
//! [`QUIET`] (a rebuild reads the whole instance, so a group that changes
//! continuously is served from SQL rather than rebuilt on every change).
//!
//! Trees are demand-driven: a group's warmer starts with the first status query of
//! the group (any output) and stops, dropping the tree, after [`IDLE`] without one.
//! Entries are stored compactly (interned strings, one-byte statuses): about 70 bytes
//! per resource, so 100,000 resources cost ~7 MB. `max_entries` bounds the sum over
//! all groups; an instance that does not fit is not kept.

use crate::store::RowLock;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::watch;
use tokio_util::sync::CancellationToken;
use tracing::{info, warn};

use super::{StatusApp, StatusEntry, StatusQuery};
use crate::domain::names::{ClusterName, ResourceName};
use crate::domain::readiness::{ClusterStatus, Readiness};
use crate::domain::status::RsyncStatus;
use crate::error::Result;
use crate::ids::InstanceId;
use crate::store::dig::dig_status;
use crate::store::rsync_resource::Shown;
use crate::store::rsync_resource::{ResourceFilter, ResourceKey};
use crate::store::status::counts_sum;

/// How long a group must go without commits before its tree is rebuilt.
const QUIET: Duration = Duration::from_millis(300);
/// How long a tree is kept without a status query of its group.
const IDLE: Duration = Duration::from_secs(600);
/// Entries per SQL page while building.
const BUILD_PAGE: usize = 10_000;

/// The status trees of this server.
pub struct StatusTrees {
    max_entries: usize,
    shutdown: CancellationToken,
    slots: Mutex<HashMap<String, Slot>>,
}

struct Slot {
    tree: Option<Arc<Tree>>,
    last_query: Instant,
}

/// A group the trees do not follow yet (see [`StatusTrees::track`]).
#[derive(Debug)]
pub struct Untracked;

/// The `all` entries of one instance, in key order.
pub struct Tree {
    pub instance: InstanceId,
    /// The group's commit signal as of the build's first read.
    changes: watch::Receiver<u64>,
    /// The instance's unfiltered counts, (dimension, value) -> resources.
    pub counts: crate::domain::status::Counts,
    strings: Vec<Box<str>>,
    entries: Vec<Compact>,
}

/// One entry; strings are indexes into `Tree::strings`.
struct Compact {
    app: u32,
    cluster: u32,
    kind: u32,
    group: u32,
    namespace: u32,
    version: u32,
    name: Box<str>,
    rsync: Option<RsyncStatus>,
    cluster_status: Option<ClusterStatus>,
    readiness: Readiness,
}

impl StatusTrees {
    pub fn new(max_entries: usize, shutdown: CancellationToken) -> Arc<StatusTrees> {
        Arc::new(StatusTrees {
            max_entries,
            shutdown,
            slots: Mutex::new(HashMap::new()),
        })
    }

    /// Notes a status query of `owner` and returns its tree if it has one that is
    /// current; None (and `Untracked`) if the group has no warmer yet.
    pub fn touch(&self, owner: &ResourceName) -> Result<Option<Arc<Tree>>, Untracked> {
        if self.shutdown.is_cancelled() {
            return Ok(None);
        }
        let mut slots = self.slots.lock().expect("status trees lock");
        match slots.get_mut(&owner.to_string()) {
            Some(slot) => {
                slot.last_query = Instant::now();
                Ok(slot.tree.clone().filter(|tree| tree.is_current()))
            }
            None => Err(Untracked),
        }
    }

    /// Starts the warmer of `owner`, a group a query just found: only groups that exist
    /// get one (a query of a name that does not exist must leave nothing behind).
    pub fn track(self: &Arc<Self>, status: &StatusApp, owner: &ResourceName) {
        if self.shutdown.is_cancelled() {
            return;
        }
        let mut slots = self.slots.lock().expect("status trees lock");
        if let std::collections::hash_map::Entry::Vacant(vacant) = slots.entry(owner.to_string()) {
            vacant.insert(Slot {
                tree: None,
                last_query: Instant::now(),
            });
            tokio::spawn(warm(self.clone(), status.clone(), owner.clone()));
        }
    }

    fn entries_elsewhere(&self, key: &str) -> usize {
        self.slots
            .lock()
            .expect("status trees lock")
            .iter()
            .filter(|(k, _)| k.as_str() != key)
            .filter_map(|(_, slot)| slot.tree.as_ref())
            .map(|tree| tree.entries.len())
            .sum()
    }
}

/// Keeps `owner`'s tree current while the group is queried.
async fn warm(trees: Arc<StatusTrees>, status: StatusApp, owner: ResourceName) {
    let key = owner.to_string();
    let mut changes = status.store().signals().subscribe(&key);
    let mut failures = 0u32;
    loop {
        let idle = {
            let mut slots = trees.slots.lock().expect("status trees lock");
            let idle = slots
                .get(&key)
                .is_none_or(|slot| slot.last_query.elapsed() >= IDLE);
            if idle {
                slots.remove(&key);
            }
            idle
        };
        if idle || trees.shutdown.is_cancelled() {
            return;
        }
        // Wait until the group has been quiet for QUIET.
        changes.borrow_and_update();
        tokio::select! {
            () = trees.shutdown.cancelled() => return,
            changed = changes.changed() => {
                if changed.is_err() {
                    return;
                }
                continue;
            }
            () = tokio::time::sleep(QUIET) => {}
        }
        let current = trees
            .slots
            .lock()
            .expect("status trees lock")
            .get(&key)
            .and_then(|slot| slot.tree.as_ref().map(|tree| tree.is_current()))
            .unwrap_or(false);
        if !current {
            let started = Instant::now();
            let budget = trees
                .max_entries
                .saturating_sub(trees.entries_elsewhere(&key));
            match build(&status, &owner, budget).await {
                Ok(tree) => {
                    failures = 0;
                    if let Some(tree) = &tree {
                        info!(
                            owner = %key,
                            instance = %tree.instance,
                            entries = tree.entries.len(),
                            build_ms = started.elapsed().as_millis() as u64,
                            "status tree ready"
                        );
                    }
                    if let Some(slot) = trees.slots.lock().expect("status trees lock").get_mut(&key)
                    {
                        slot.tree = tree.map(Arc::new);
                    }
                }
                Err(error) => {
                    failures += 1;
                    warn!(owner = %key, %error, "cannot build the status tree");
                    let wait = QUIET * (1 << failures.min(6));
                    tokio::select! {
                        () = trees.shutdown.cancelled() => return,
                        () = tokio::time::sleep(wait) => {}
                    }
                    continue;
                }
            }
        }
        // Sleep until the next commit of the group, or the idle check.
        tokio::select! {
            () = trees.shutdown.cancelled() => return,
            changed = changes.changed() => {
                if changed.is_err() {
                    return;
                }
            }
            () = tokio::time::sleep(IDLE) => {}
        }
    }
}

/// Reads `owner`'s current instance into a tree; None if it has no instance or more
/// than `budget` entries.
async fn build(status: &StatusApp, owner: &ResourceName, budget: usize) -> Result<Option<Tree>> {
    // Subscribe before reading: a commit after this point makes the tree stale.
    let mut changes = status.store().signals().subscribe(&owner.to_string());
    changes.borrow_and_update();
    let mut conn = status.store().read().await?;
    let Some(instance) = dig_status(&mut conn, owner, RowLock::None)
        .await?
        .and_then(|s| s.current_instance)
    else {
        return Ok(None);
    };
    // A migrated-out group's current instance shows the base's reports, which its
    // signals do not follow: no tree of it.
    if Shown::of(&mut conn, instance).await? == Shown::Shared {
        return Ok(None);
    }
    let counts = counts_sum(&mut conn, instance, &ResourceFilter::default()).await?;
    let mut strings = Interner::default();
    let mut entries = Vec::new();
    let mut after = None;
    loop {
        let query = StatusQuery::all_page(Some(instance), BUILD_PAGE, after);
        let (page, next) = status
            .page(
                &mut conn,
                instance,
                Shown::Own,
                &ResourceFilter::default(),
                &query,
            )
            .await?;
        if entries.len() + page.len() > budget {
            return Ok(None);
        }
        entries.extend(page.into_iter().map(|e| Compact::of(e, &mut strings)));
        if changes.has_changed().unwrap_or(true) {
            // Stale already: the warmer waits for quiet again.
            return Ok(None);
        }
        match next {
            Some(key) => after = Some(key),
            None => break,
        }
    }
    entries.shrink_to_fit();
    Ok(Some(Tree {
        instance,
        changes,
        counts,
        strings: strings.strings,
        entries,
    }))
}

impl Compact {
    fn of(e: StatusEntry, strings: &mut Interner) -> Compact {
        Compact {
            app: strings.get(&e.key.app),
            cluster: strings.get(&e.key.cluster),
            kind: strings.get(&e.key.kind),
            group: strings.get(&e.key.group),
            namespace: strings.get(&e.key.namespace),
            version: strings.get(&e.version),
            name: e.key.name.into_boxed_str(),
            rsync: e.rsync_status,
            cluster_status: e.cluster_status,
            readiness: e.readiness,
        }
    }
}

#[derive(Default)]
struct Interner {
    index: HashMap<String, u32>,
    strings: Vec<Box<str>>,
}

impl Interner {
    fn get(&mut self, s: &str) -> u32 {
        if let Some(&i) = self.index.get(s) {
            return i;
        }
        let i = self.strings.len() as u32;
        self.strings.push(s.into());
        self.index.insert(s.to_string(), i);
        i
    }
}

impl Tree {
    /// A tree of `entries` (in key order) that is never current, for tests of pages.
    #[cfg(test)]
    pub(crate) fn of_entries(instance: InstanceId, entries: Vec<StatusEntry>) -> Arc<Tree> {
        let mut strings = Interner::default();
        let entries = entries
            .into_iter()
            .map(|e| Compact::of(e, &mut strings))
            .collect();
        Arc::new(Tree {
            instance,
            changes: watch::channel(0).1,
            counts: Default::default(),
            strings: strings.strings,
            entries,
        })
    }

    /// No commit to the group since the build started.
    pub fn is_current(&self) -> bool {
        !self.changes.has_changed().unwrap_or(true)
    }

    fn s(&self, i: u32) -> &str {
        &self.strings[i as usize]
    }

    fn key_of<'a>(&'a self, e: &'a Compact) -> [&'a str; 6] {
        [
            self.s(e.app),
            self.s(e.cluster),
            self.s(e.kind),
            self.s(e.group),
            self.s(e.namespace),
            &e.name,
        ]
    }

    /// A page as `StatusApp::page` answers it for ALL output: the entries after
    /// `query.after` that pass `filter` (apps; clusters by resource name), up to
    /// `query.page_size`, and the key to continue after if there are more.
    pub fn page(
        self: &Arc<Self>,
        filter: &ResourceFilter,
        query: &StatusQuery,
    ) -> (TreePage, Option<ResourceKey>) {
        let start = match &query.after {
            Some(after) => {
                let after = after.columns();
                self.entries.partition_point(|e| self.key_of(e) <= after)
            }
            None => 0,
        };
        let wanted = |e: &Compact| filter.matches(self.s(e.app), self.s(e.cluster), &e.name);
        let mut indices: Vec<u32> =
            Vec::with_capacity((self.entries.len() - start).min(query.page_size + 1));
        indices.extend(
            (start..self.entries.len())
                .filter(|&i| wanted(&self.entries[i]))
                .take(query.page_size + 1)
                .map(|i| i as u32),
        );
        let more = indices.len() > query.page_size;
        indices.truncate(query.page_size);
        let next = match indices.last() {
            Some(&last) if more => {
                let [app, cluster, kind, group, namespace, name] =
                    self.key_of(&self.entries[last as usize]);
                Some(ResourceKey {
                    app: app.to_string(),
                    cluster: ClusterName::from(cluster),
                    kind: kind.to_string(),
                    group: group.to_string(),
                    namespace: namespace.to_string(),
                    name: name.to_string(),
                })
            }
            _ => None,
        };
        let page = TreePage {
            tree: self.clone(),
            indices,
        };
        (page, next)
    }
}

/// A page of a tree: its entries, read in place (a page is written to the wire
/// straight from the tree, without a copy of its strings).
#[derive(Clone)]
pub struct TreePage {
    tree: Arc<Tree>,
    indices: Vec<u32>,
}

/// One entry of a [`TreePage`]. `app` and `cluster` are also given as ids, equal for
/// equal strings within the page's tree.
pub struct EntryRef<'a> {
    pub app_id: u32,
    pub app: &'a str,
    pub cluster_id: u32,
    pub cluster: &'a str,
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub namespace: &'a str,
    pub name: &'a str,
    pub rsync_status: Option<RsyncStatus>,
    pub cluster_status: Option<ClusterStatus>,
    pub readiness: Readiness,
}

impl TreePage {
    pub fn len(&self) -> usize {
        self.indices.len()
    }

    pub fn is_empty(&self) -> bool {
        self.indices.is_empty()
    }

    /// The page's entries, in key order (grouped by app, then cluster).
    pub fn entries(&self) -> impl Iterator<Item = EntryRef<'_>> {
        let tree = &*self.tree;
        self.indices.iter().map(move |&i| {
            let e = &tree.entries[i as usize];
            EntryRef {
                app_id: e.app,
                app: tree.s(e.app),
                cluster_id: e.cluster,
                cluster: tree.s(e.cluster),
                group: tree.s(e.group),
                version: tree.s(e.version),
                kind: tree.s(e.kind),
                namespace: tree.s(e.namespace),
                name: &e.name,
                rsync_status: e.rsync,
                cluster_status: e.cluster_status,
                readiness: e.readiness,
            }
        })
    }
}

impl std::fmt::Debug for TreePage {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TreePage")
            .field("instance", &self.tree.instance)
            .field("entries", &self.indices.len())
            .finish()
    }
}
