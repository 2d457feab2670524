//! Rsync status transitions: bulk moves of a scope of resources (terminate, takeover
//! by a newer instance) and per-resource compare-and-swap moves, each keeping the
//! aggregates.

use super::*;
use crate::error::Conflict;

/// Which rendered resources a bulk transition moves.
#[derive(Debug, Clone, Copy)]
pub enum Scope<'a> {
    /// Every resource of one instance.
    Instance(InstanceId),
    /// One instance's resources on one cluster.
    InstanceOn(InstanceId, &'a str),
    /// The resources on a cluster of its non-superseded instances.
    Cluster(&'a str),
    /// The resources of `owner`'s other instances that `by` renders too (same cluster
    /// and object), except those already taken over without a write (see
    /// `taken_over`): `by` takes them over.
    RenderedBy { owner: &'a str, by: InstanceId },
    /// The resources of `owner`'s other instances that `by` does not render.
    NotRenderedBy { owner: &'a str, by: InstanceId },
    /// The resources of the inner scope whose object an older instance handed over
    /// (its row is `Superseded`, or taken over without a write): the object may be on
    /// the cluster from that older apply even though this row was never applied, so
    /// letting it go takes a delete.
    Inherited(&'a Scope<'a>),
}

/// The same object on the same cluster in `rsync_resources` (the outer row) and `n`.
const SAME_OBJECT: &str = "n.cluster = rsync_resources.cluster AND n.kind = rsync_resources.kind \
     AND n.api_group = rsync_resources.api_group AND n.namespace = rsync_resources.namespace \
     AND n.name = rsync_resources.name";

impl Scope<'_> {
    /// The scope as conditions on `rsync_resources`, binding its values; `others` are
    /// the owner's other instances to look at (see [`Scope::others`]).
    fn sql(self, others: &[String], binds: &mut Vec<String>) -> String {
        let mut bind = |value: String| {
            binds.push(value);
            format!("${}", binds.len())
        };
        match self {
            Scope::Inherited(inner) => {
                let inner = inner.sql(others, binds);
                format!(
                    "{inner} AND EXISTS (SELECT 1 FROM rsync_resources n WHERE {SAME_OBJECT} \
                     AND n.instance_id < rsync_resources.instance_id \
                     AND (n.rsync_status = 'Superseded' OR {}))",
                    taken_over("n.")
                )
            }
            Scope::Instance(instance) => {
                format!(" AND instance_id = {}", bind(instance.to_string()))
            }
            Scope::InstanceOn(instance, cluster) => format!(
                " AND instance_id = {} AND cluster = {}",
                bind(instance.to_string()),
                bind(cluster.to_string())
            ),
            Scope::Cluster(cluster) => format!(
                " AND cluster = {} AND instance_id IN (SELECT id FROM instances WHERE superseded = 0)",
                bind(cluster.to_string())
            ),
            Scope::RenderedBy { by, .. } | Scope::NotRenderedBy { by, .. } => {
                let others: Vec<String> = others.iter().map(|o| bind(o.clone())).collect();
                let by = bind(by.to_string());
                let (untaken, negation) = match self {
                    Scope::RenderedBy { .. } => (format!(" AND NOT {}", taken_over("")), ""),
                    _ => (String::new(), "NOT "),
                };
                format!(
                    " AND instance_id IN ({}){untaken} \
                     AND {negation}EXISTS (SELECT 1 FROM rsync_resources n WHERE n.instance_id = {by} AND {SAME_OBJECT})",
                    others.join(", ")
                )
            }
        }
    }

    /// For the scopes over an owner's other instances: those that have resources in one
    /// of `from` (by their aggregates), the only ones whose rows the move reads. An
    /// instance replaced by a rollout keeps in Applied only its `removed` rows (the rest
    /// moved to Superseded in its aggregates when it was taken over). Without this,
    /// PostgreSQL read the rows of every instance of the owner, the new one's included
    /// (1.8-2.4 s for two instances of 100,000 resources, with none to move).
    async fn others(self, tx: &mut Tx, from: &[RsyncStatus]) -> Result<Option<Vec<String>>> {
        let scope = match self {
            Scope::Inherited(inner) => *inner,
            other => other,
        };
        let (Scope::RenderedBy { owner, by } | Scope::NotRenderedBy { owner, by }) = scope else {
            return Ok(None);
        };
        let statuses: Vec<String> = (0..from.len()).map(|i| format!("${}", i + 3)).collect();
        let sql = format!(
            "SELECT id FROM instances WHERE owner = $1 AND id <> $2 AND EXISTS ( \
               SELECT 1 FROM status_counts s WHERE s.instance_id = instances.id \
               AND s.dimension = 'rsync' AND s.value IN ({}) AND s.count > 0) ORDER BY id",
            statuses.join(", ")
        );
        let mut query = sqlx::query_as::<_, (String,)>(&sql)
            .bind(owner.to_string())
            .bind(by.to_string());
        for status in from {
            query = query.bind(status.as_str());
        }
        let rows = query.fetch_all(&mut **tx).await?;
        Ok(Some(rows.into_iter().map(|(id,)| id).collect()))
    }
}

/// Whether a bulk move tells watch streams about each resource it moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Announce {
    /// An event per resource (and the rows read, and on PostgreSQL locked, first, so
    /// the aggregate deltas match exactly the rows the update moves).
    EachResource,
    /// Only the aggregates change, read from the update itself (one row per app,
    /// cluster and status), so the cost is the update's: for resources no watch stream
    /// follows any more, such as an owner's older instances moved in the transaction
    /// whose lifecycle event switches the owner's streams to its new instance.
    Silently,
}

/// Lets go of the rows of `scope` rsync has not applied: Pending ones need no delete and
/// become Terminated at once, except those (Pending or Failed) whose object an older
/// instance handed over ([`Scope::Inherited`]): the object is on the cluster from that
/// instance's apply, so they go Retrying, for rsync to delete.
pub async fn rsync_let_go_unapplied(tx: &mut Tx, scope: Scope<'_>) -> Result<()> {
    let moves = [
        (
            Scope::Inherited(&scope),
            &[RsyncStatus::Pending, RsyncStatus::Failed][..],
            RsyncStatus::Retrying,
        ),
        (scope, &[RsyncStatus::Pending][..], RsyncStatus::Terminated),
    ];
    for (scope, from, to) in moves {
        rsync_bulk_transition(tx, scope, from, to, Announce::EachResource).await?;
    }
    Ok(())
}

/// Moves every resource of `scope` from one of `from` to `to`, keeping the aggregates
/// (and announcing each resource, or not). Returns how many moved.
pub async fn rsync_bulk_transition(
    tx: &mut Tx,
    scope: Scope<'_>,
    from: &[RsyncStatus],
    to: RsyncStatus,
    announce: Announce,
) -> Result<i64> {
    let lock = tx.row_lock(RowLock::Update);
    // The status first: a row of another status is passed over before the scope's
    // subqueries (a probe per row) are evaluated.
    let mut binds: Vec<String> = Vec::new();
    let statuses: Vec<String> = from
        .iter()
        .map(|s| {
            binds.push(s.as_str().to_string());
            format!("${}", binds.len())
        })
        .collect();
    let others = scope.others(tx, from).await?;
    if others.as_ref().is_some_and(Vec::is_empty) {
        return Ok(0);
    }
    let mut selection = format!(" AND rsync_status IN ({})", statuses.join(", "));
    selection.push_str(&scope.sql(others.as_deref().unwrap_or_default(), &mut binds));

    if announce == Announce::Silently {
        return bulk_transition_counted(tx, &selection, binds, to).await;
    }
    // Read (and on PostgreSQL lock) the rows first, so the aggregate deltas match
    // exactly the rows the update moves.
    let select = format!(
        "SELECT instance_id, app, cluster, kind, api_group, api_version, namespace, name, rsync_status, \
         cluster_status, readiness FROM rsync_resources WHERE 1 = 1{selection} \
         ORDER BY instance_id, app, cluster, kind, api_group, namespace, name{lock}"
    );
    let mut query = sqlx::query(&select);
    for value in &binds {
        query = query.bind(value.clone());
    }
    let rows = query.fetch_all(&mut **tx).await?;
    if rows.is_empty() {
        return Ok(0);
    }
    let mut groups: BTreeMap<(String, String, String, RsyncStatus), i64> = BTreeMap::new();
    let mut owners: BTreeMap<String, String> = BTreeMap::new();
    for row in &rows {
        let instance: String = row.try_get("instance_id")?;
        let key = ResourceKey::decode(row)?;
        let from: RsyncStatus = row.try_get("rsync_status")?;
        let old = Statuses {
            rsync: Some(from),
            cluster: Some(row.try_get("cluster_status")?),
            readiness: row.try_get("readiness")?,
        };
        if !owners.contains_key(&instance) {
            let id: InstanceId = instance.parse().map_err(Error::internal)?;
            let owner = crate::store::instance::instance_find(tx, id)
                .await?
                .map(|i| i.owner)
                .unwrap_or_default();
            owners.insert(instance.clone(), owner);
        }
        let version: String = row.try_get("api_version")?;
        let new = Statuses {
            rsync: Some(to),
            ..old.clone()
        };
        *groups
            .entry((
                instance.clone(),
                key.app.clone(),
                key.cluster.to_string(),
                from,
            ))
            .or_default() += 1;
        tx.emit(NewEvent::resource(
            &owners[&instance],
            &instance,
            &key,
            &version,
            true,
            Some(old),
            new,
            None,
        ));
    }
    move_selection(tx, &selection, &binds, to).await?;
    count_moves(tx, groups, to).await
}

/// Sets the status of every resource of `selection` (bound by `binds`) to `to`.
async fn move_selection(
    tx: &mut Tx,
    selection: &str,
    binds: &[String],
    to: RsyncStatus,
) -> Result<()> {
    let update = format!(
        "UPDATE rsync_resources SET rsync_status = ${} WHERE 1 = 1{selection}",
        binds.len() + 1
    );
    let mut query = sqlx::query(&update);
    for value in binds {
        query = query.bind(value.clone());
    }
    query.bind(to.as_str()).execute(&mut **tx).await?;
    Ok(())
}

/// Applies to the aggregates the moves to `to` of `groups`: (instance, app, cluster,
/// status before) -> resources. Returns how many moved.
async fn count_moves(
    tx: &mut Tx,
    groups: BTreeMap<(String, String, String, RsyncStatus), i64>,
    to: RsyncStatus,
) -> Result<i64> {
    let mut deltas = CountDeltas::default();
    let mut moved = 0;
    for ((instance, app, cluster, status), n) in groups {
        let instance: InstanceId = instance.parse().map_err(Error::internal)?;
        deltas.add(
            instance,
            &app,
            &cluster,
            Dimension::Rsync,
            status.as_str(),
            -n,
        );
        deltas.add(instance, &app, &cluster, Dimension::Rsync, to.as_str(), n);
        moved += n;
    }
    deltas.apply(tx).await?;
    Ok(moved)
}

/// The silent form of [`rsync_bulk_transition`]: moves the rows of `selection` and
/// applies the aggregate changes, counted per app, cluster and status; each row keeps
/// the status it had in `superseded_from`, so a watch stream resumed at a token from
/// before the move counts it as it was then. One statement, which returns what it moved
/// with that status (grouped by PostgreSQL; SQLite cannot update in a WITH clause, so
/// its rows are grouped here). The caller holds the owner's row FOR UPDATE, which every
/// status writer of the owner's resources conflicts with (see
/// `store::status::lock_owners`); SQLite's one writer is this transaction.
async fn bulk_transition_counted(
    tx: &mut Tx,
    selection: &str,
    binds: Vec<String>,
    to: RsyncStatus,
) -> Result<i64> {
    let postgres = tx.backend() == crate::store::Backend::Postgres;
    let update = format!(
        "UPDATE rsync_resources SET rsync_status = ${}, superseded_from = rsync_status \
         WHERE 1 = 1{selection} RETURNING instance_id, app, cluster, superseded_from",
        binds.len() + 1
    );
    let sql = if postgres {
        format!(
            "WITH moved AS ({update}) SELECT instance_id, app, cluster, \
             superseded_from AS rsync_status, COUNT(*) AS n FROM moved \
             GROUP BY instance_id, app, cluster, superseded_from"
        )
    } else {
        update
    };
    let mut query = sqlx::query(&sql);
    for value in &binds {
        query = query.bind(value.clone());
    }
    let rows = query.bind(to.as_str()).fetch_all(&mut **tx).await?;
    let mut groups: BTreeMap<(String, String, String, RsyncStatus), i64> = BTreeMap::new();
    for row in &rows {
        let (status, n) = if postgres {
            (row.try_get("rsync_status")?, row.try_get::<i64, _>("n")?)
        } else {
            (row.try_get("superseded_from")?, 1)
        };
        let group = (
            row.try_get("instance_id")?,
            row.try_get("app")?,
            row.try_get("cluster")?,
            status,
        );
        *groups.entry(group).or_default() += n;
    }
    if groups.is_empty() {
        return Ok(0);
    }
    count_moves(tx, groups, to).await
}

/// One rsync status change: the resource `key` of `instance` (owned by `owner`) moves
/// to `to` if its status is still one of `expected`.
#[derive(Debug)]
pub struct StatusMove<'a> {
    pub owner: &'a str,
    pub instance: InstanceId,
    pub key: &'a ResourceKey,
    pub expected: &'a [RsyncStatus],
    pub to: RsyncStatus,
}

/// Makes `moves` (compare-and-swap each), keeping the aggregates and emitting an event
/// per resource that changed; returns how many changed. Each chunk costs two
/// statements: one read of the current statuses (rows tagged with their move's index,
/// so nothing is matched back by key), one multi-row update that re-checks them. The
/// writers of a cluster's resources exclude each other (one writer on SQLite; the
/// cluster's row lock on PostgreSQL, see `store::status::lock_owners`), so the update
/// changes every row the read found movable; if it does not, another writer got in
/// between and the transaction fails with ABORTED (the callers retry) rather than
/// record events and counts for changes it did not make. A resource named twice is
/// moved once, by its first move. A row of an instance a rollout replaced that moves to
/// Applied (an apply that raced the rollout) is marked `removed`: it is not one the
/// newer instance took over (see `taken_over`; `instance_settle_late_applies` gives it
/// to the newer instance if that renders it too).
pub async fn rsync_set_statuses(
    tx: &mut Tx,
    moves: &[StatusMove<'_>],
    deltas: &mut CountDeltas,
) -> Result<usize> {
    const MATCH: &str = "r.instance_id = v.column2 AND r.app = v.column3 AND r.cluster = v.column4 \
        AND r.kind = v.column5 AND r.api_group = v.column6 AND r.namespace = v.column7 AND r.name = v.column8";
    let mut changed = 0;
    let mut named = HashSet::new();
    for chunk in moves.chunks(WRITE_CHUNK) {
        let instances: Vec<String> = chunk.iter().map(|m| m.instance.to_string()).collect();
        let sql = format!(
            "SELECT v.column1 AS i, r.rsync_status AS rsync_status, r.cluster_status AS cluster_status, \
             r.readiness AS readiness, r.api_version AS api_version \
             FROM rsync_resources r JOIN (VALUES {}) AS v ON {MATCH}",
            placeholders(tx, chunk.len(), 8)
        );
        let mut query = sqlx::query(&sql);
        for (i, m) in chunk.iter().enumerate() {
            query = bind_key(query.bind(i as i64), &instances[i], m.key.columns());
        }
        // (status, statuses, api version) of each move's resource, by index.
        let mut current: Vec<Option<(RsyncStatus, Statuses, String)>> = vec![None; chunk.len()];
        for row in query.fetch_all(&mut **tx).await? {
            let i: i64 = row.try_get("i")?;
            let status: RsyncStatus = row.try_get("rsync_status")?;
            let statuses = Statuses {
                rsync: Some(status),
                cluster: Some(row.try_get("cluster_status")?),
                readiness: row.try_get("readiness")?,
            };
            let version = row.try_get("api_version")?;
            if let Some(slot) = usize::try_from(i).ok().and_then(|i| current.get_mut(i)) {
                *slot = Some((status, statuses, version));
            }
        }
        // The moves to make: (index in chunk, status it had).
        let mut planned: Vec<(usize, RsyncStatus)> = Vec::new();
        for (i, m) in chunk.iter().enumerate() {
            if !named.insert((m.instance, m.key)) {
                continue;
            }
            if let Some((status, _, _)) = &current[i]
                && m.expected.contains(status)
                && *status != m.to
            {
                planned.push((i, *status));
            }
        }
        if planned.is_empty() {
            continue;
        }
        let sql = format!(
            "UPDATE rsync_resources AS r SET rsync_status = v.column9, removed = CASE \
             WHEN v.column9 = 'Applied' AND r.instance_id IN (SELECT id FROM instances \
             WHERE taken_over = 1) THEN 1 ELSE r.removed END \
             FROM (VALUES {}) AS v WHERE {MATCH} AND r.rsync_status = v.column10",
            placeholders(tx, planned.len(), 10)
        );
        let mut query = sqlx::query(&sql);
        for (i, from) in &planned {
            query = bind_key(
                query.bind(*i as i64),
                &instances[*i],
                chunk[*i].key.columns(),
            )
            .bind(chunk[*i].to.as_str())
            .bind(from.as_str());
        }
        let updated = query.execute(&mut **tx).await?.rows_affected();
        if updated != planned.len() as u64 {
            return Err(Error::Aborted {
                reason: Conflict::ConcurrentStatusChange,
                message: format!(
                    "{} of {} rsync statuses changed while they were being recorded; retry",
                    planned.len() as u64 - updated.min(planned.len() as u64),
                    planned.len()
                ),
            });
        }
        for (i, from) in planned {
            let m = &chunk[i];
            let (_, old, version) = current[i].take().expect("planned moves were read");
            deltas.moved(
                m.instance,
                &m.key.app,
                &m.key.cluster,
                Dimension::Rsync,
                from.as_str(),
                m.to.as_str(),
            );
            let new = Statuses {
                rsync: Some(m.to),
                ..old.clone()
            };
            tx.emit(NewEvent::resource(
                m.owner,
                &instances[i],
                m.key,
                &version,
                true,
                Some(old),
                new,
                None,
            ));
            changed += 1;
        }
    }
    Ok(changed)
}
