//! PostgreSQL: a group of action changes written as one autocommitted statement (see
//! [`crate::store::autocommit`]).

use std::collections::HashSet;

use serde_json::Value;
use sqlx::{AnyConnection, Row};

use super::{executor_text, json, parse_id};
use crate::domain::action::Target;
use crate::error::{Error, Result};
use crate::ids::ActionId;
use crate::store::action::ActionRecord;

/// A group of action changes for [`action_write_at_once`]. A change is *fenced* when
/// this replica may write it only while it runs the change's cluster (an agent
/// session's report, a create another replica passed here): it is written only if
/// the cluster's fence still holds the epoch `claims` names for it.
#[derive(Debug, Default)]
pub struct AtOnce<'a> {
    /// New actions, and whether each is fenced.
    pub inserts: Vec<(&'a ActionRecord, bool)>,
    /// Moved actions, the generation each must still have, and whether it is fenced.
    pub moves: Vec<(&'a ActionRecord, i64, bool)>,
    /// The action each event is of, in order, and the events' log text.
    pub events: (&'a [ActionId], &'a str),
    /// The event-log target.
    pub target: &'a str,
    pub time: i64,
    /// (cluster, epoch) of the clusters of the fenced changes: the epoch this replica
    /// runs each at (no claims in a single process).
    pub claims: Vec<(&'a str, i64)>,
}

/// What [`action_write_at_once`] wrote.
#[derive(Debug)]
pub struct WrittenAtOnce {
    pub inserted: HashSet<ActionId>,
    pub updated: HashSet<ActionId>,
    /// The clusters of the inserts that exist (an insert into any other was dropped).
    pub clusters: HashSet<String>,
    /// The event-log target's last revision, if events were appended.
    pub revision: Option<i64>,
    /// The claimed clusters whose fence no longer holds the claimed epoch (another
    /// replica took them): their fenced changes were not written.
    pub fenced_out: HashSet<String>,
}

/// The statement of [`action_write_at_once`] (binds in its order). Every table the
/// group touches is sought by key from the group's own rows: PostgreSQL estimates a
/// JSON recordset at 100 rows, and joined to it a table of the fleet's size (the
/// fences) is scanned whole.
pub(crate) fn at_once_sql() -> String {
    format!(
        "WITH claims AS (SELECT * FROM json_to_recordset($7::json) AS c (cluster text, epoch bigint)), \
         holding AS (SELECT f.cluster FROM cluster_fences f \
         WHERE f.cluster = ANY(ARRAY(SELECT cluster FROM claims)) \
         AND EXISTS (SELECT 1 FROM claims c WHERE c.cluster = f.cluster AND c.epoch = f.epoch) \
         ORDER BY f.cluster FOR SHARE OF f), \
         creating AS (SELECT * FROM json_to_recordset($1::json) AS v ({INSERT_TYPES})), \
         held AS (SELECT name FROM clusters \
         WHERE name = ANY(ARRAY(SELECT cluster FROM creating)) ORDER BY name FOR KEY SHARE), \
         inserted AS (INSERT INTO actions ({INSERT_COLUMNS}) SELECT {INSERT_COLUMNS} \
         FROM creating WHERE cluster IN (SELECT name FROM held) \
         AND (NOT fenced OR cluster IN (SELECT cluster FROM holding)) \
         ON CONFLICT DO NOTHING RETURNING id), \
         moving AS (SELECT * FROM json_to_recordset($2::json) AS v ({MOVE_TYPES})), \
         updated AS (UPDATE actions SET {MOVE_SET} FROM moving v \
         WHERE actions.id = ANY(ARRAY(SELECT id FROM moving)) \
         AND actions.id = v.id AND actions.generation = v.expected \
         AND (NOT v.fenced OR actions.cluster IN (SELECT cluster FROM holding)) \
         RETURNING actions.id), \
         kept AS (SELECT ord FROM json_array_elements_text($3::json) WITH ORDINALITY AS e (id, ord) \
         WHERE id IN (SELECT id FROM inserted UNION ALL SELECT id FROM updated)), \
         appending AS (SELECT count(*) AS n, CASE WHEN count(*) = json_array_length($3::json) \
         THEN $4 ELSE (SELECT json_agg(x ORDER BY ord)::text \
         FROM json_array_elements($4::json) WITH ORDINALITY AS e (x, ord) \
         WHERE ord IN (SELECT ord FROM kept)) END AS events FROM kept), \
         {} \
         SELECT (SELECT COALESCE(json_agg(id), '[]') FROM inserted)::text AS inserted, \
         (SELECT COALESCE(json_agg(id), '[]') FROM updated)::text AS updated, \
         (SELECT COALESCE(json_agg(name), '[]') FROM held)::text AS clusters, \
         (SELECT revision FROM appended) AS revision, \
         (SELECT COALESCE(json_agg(cluster), '[]') FROM holding)::text AS holding",
        crate::store::watch::append_ctes("appending", "$5", "$6")
    )
}

/// PostgreSQL: a group of action changes as ONE autocommitted statement. It holds the
/// fences of the claimed clusters that still hold their epochs (FOR SHARE, so a
/// takeover waits for the commit, and one that committed first is seen) and drops the
/// fenced changes of the others; holds the inserts' clusters against deletion (KEY
/// SHARE) and drops the inserts of clusters that are gone; inserts the new actions (one
/// whose pod or node has an open action is not inserted); writes each moved action
/// over the stored one if its generation is still the expected one (a compare-and-swap
/// per row); and appends to the target the events of the actions it inserted or
/// updated, in order. The events' text ([`row_json`](crate::store::watch::row_json) of
/// all of them) is stored as it is when every action is written, as it nearly always
/// is (PostgreSQL parses JSON at tens of MB/s: splitting a group's events cost it
/// milliseconds); otherwise it is split and the others' events kept. The target's row
/// is locked last, for the statement's tail and its commit only.
pub async fn action_write_at_once(
    conn: &mut AnyConnection,
    group: &AtOnce<'_>,
) -> Result<WrittenAtOnce> {
    let new: Vec<Value> = group
        .inserts
        .iter()
        .map(|(a, fenced)| insert_row(a, *fenced))
        .collect();
    let moved: Vec<Value> = group
        .moves
        .iter()
        .map(|(a, expected, fenced)| move_row(a, *expected, *fenced))
        .collect();
    let claims: Vec<Value> = group
        .claims
        .iter()
        .map(|(cluster, epoch)| serde_json::json!({"cluster": cluster, "epoch": epoch}))
        .collect();
    let (of, text) = group.events;
    let of: Vec<String> = of.iter().map(ActionId::to_string).collect();
    let sql = at_once_sql();
    let row = sqlx::query(&sql)
        .bind(json(&new))
        .bind(json(&moved))
        .bind(json(&of))
        .bind(text)
        .bind(group.target)
        .bind(group.time)
        .bind(json(&claims))
        .fetch_one(conn)
        .await?;
    let list = |column: &str| -> Result<Vec<String>> {
        let text: String = row.try_get(column)?;
        serde_json::from_str(&text).map_err(Error::internal)
    };
    let ids = |column: &str| -> Result<HashSet<ActionId>> {
        list(column)?.into_iter().map(parse_id).collect()
    };
    let holding: HashSet<String> = list("holding")?.into_iter().collect();
    Ok(WrittenAtOnce {
        inserted: ids("inserted")?,
        updated: ids("updated")?,
        clusters: list("clusters")?.into_iter().collect(),
        revision: row.try_get("revision")?,
        fenced_out: group
            .claims
            .iter()
            .filter(|(cluster, _)| !holding.contains(*cluster))
            .map(|(cluster, _)| (*cluster).to_owned())
            .collect(),
    })
}

const INSERT_COLUMNS: &str = "id, cluster, node, namespace, pod, action_name, spec, state, \
     executor, status, generation, open_key, create_time, update_time, deadline, expire_time";
const INSERT_TYPES: &str = "id text, cluster text, node text, namespace text, pod text, \
     action_name text, spec text, state text, executor text, status text, generation bigint, \
     open_key text, create_time bigint, update_time bigint, deadline bigint, \
     expire_time bigint, fenced boolean";
const MOVE_TYPES: &str = "id text, expected bigint, state text, executor text, status text, \
     generation bigint, open_key text, update_time bigint, deadline bigint, \
     expire_time bigint, fenced boolean";
const MOVE_SET: &str = "state = v.state, executor = v.executor, status = v.status, \
     generation = v.generation, open_key = v.open_key, update_time = v.update_time, \
     deadline = v.deadline, expire_time = v.expire_time";

/// A new action's columns, as [`INSERT_TYPES`] reads them.
fn insert_row(action: &ActionRecord, fenced: bool) -> Value {
    let (namespace, pod) = match &action.spec.target {
        Target::Pod { namespace, pod } => (namespace.as_str(), pod.as_str()),
        Target::Node => ("", ""),
    };
    let mut row = changing(action);
    row.extend(
        [
            ("cluster", Value::from(action.cluster.as_str())),
            ("node", action.node.as_str().into()),
            ("namespace", namespace.into()),
            ("pod", pod.into()),
            ("action_name", action.spec.operation.name().into()),
            ("spec", json(&action.spec).into()),
            ("create_time", action.create_time.into()),
            ("fenced", fenced.into()),
        ]
        .map(|(column, value)| (column.to_string(), value)),
    );
    Value::Object(row)
}

/// A moved action's columns and the generation it must still have, as [`MOVE_TYPES`]
/// reads them.
fn move_row(action: &ActionRecord, expected: i64, fenced: bool) -> Value {
    let mut row = changing(action);
    row.insert("expected".into(), expected.into());
    row.insert("fenced".into(), fenced.into());
    Value::Object(row)
}

/// The id and the columns a move changes.
fn changing(action: &ActionRecord) -> serde_json::Map<String, Value> {
    [
        ("id", Value::from(action.id.to_string())),
        ("state", action.state.as_str().into()),
        ("executor", executor_text(&action.executor).into()),
        ("status", json(&action.outcome).into()),
        ("generation", action.generation.into()),
        ("open_key", action.open_key().into()),
        ("update_time", action.update_time.into()),
        ("deadline", action.deadline.into()),
        ("expire_time", action.expire_time.into()),
    ]
    .into_iter()
    .map(|(column, value)| (column.to_string(), value))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::action::{ActionState, Operation};
    use crate::domain::readiness::Connectivity;
    use crate::store::Store;
    use crate::store::action::{ActionOutcome, ActionSpec, action_get};
    use crate::store::watch::{NewEvent, events_after, row_json, target_revision};

    fn action(cluster: &str, pod: &str) -> ActionRecord {
        ActionRecord {
            id: ActionId::new(),
            cluster: cluster.into(),
            node: "n0".into(),
            spec: ActionSpec {
                target: Target::Pod {
                    namespace: Default::default(),
                    pod: pod.into(),
                },
                operation: Operation::Reboot {
                    delay_in_seconds: 0,
                },
            },
            state: ActionState::Pending,
            executor: None,
            outcome: ActionOutcome::default(),
            generation: 1,
            create_time: 1,
            update_time: 1,
            deadline: Some(100),
            expire_time: None,
        }
    }

    /// Events told apart by their cluster names `e{n}`, of the actions `of`: the ids
    /// and log text [`action_write_at_once`] takes.
    fn events(of: &[(usize, ActionId)]) -> (Vec<ActionId>, String) {
        let events: Vec<NewEvent> = of
            .iter()
            .map(|(n, _)| {
                NewEvent::connectivity("actions", &format!("e{n}"), None, Connectivity::Available)
            })
            .collect();
        (
            of.iter().map(|(_, id)| *id).collect(),
            row_json(&events).unwrap(),
        )
    }

    /// A store on a fresh PostgreSQL database with one cluster, `c1`.
    async fn with_cluster_c1() -> (String, Store) {
        let url = flotilla_tests::create_postgres_database().await;
        let store = Store::connect(&url).await.unwrap();
        crate::store::action::tests::insert_cluster(&store, "c1", &[]).await;
        (url, store)
    }

    /// An unfenced group (a single process's).
    fn unfenced<'a>(
        inserts: &[&'a ActionRecord],
        moves: &[(&'a ActionRecord, i64)],
        events: (&'a [ActionId], &'a str),
        time: i64,
    ) -> AtOnce<'a> {
        AtOnce {
            inserts: inserts.iter().map(|a| (*a, false)).collect(),
            moves: moves.iter().map(|(a, e)| (*a, *e, false)).collect(),
            events,
            target: "actions",
            time,
            claims: Vec::new(),
        }
    }

    /// PostgreSQL's one-statement group write: inserts into a cluster that is gone are
    /// dropped, a second open action on a pod is not inserted, a stale
    /// compare-and-swap writes nothing, and exactly the events of what was written are
    /// appended, in order, in one log row; nothing written appends nothing.
    #[tokio::test]
    async fn a_group_is_written_in_one_statement_postgres() {
        let (url, store) = with_cluster_c1().await;
        let mut conn = store.autocommit(false).await.unwrap();
        let logged = async |conn: &mut AnyConnection, after: i64| {
            events_after(conn, "actions", after, i64::MAX, 100)
                .await
                .unwrap()
                .into_iter()
                .map(|e| (e.revision, e.batch, e.time, e.cluster))
                .collect::<Vec<_>>()
        };

        let (a, busy, gone, d) = (
            action("c1", "p1"),
            action("c1", "p1"),
            action("gone", "p1"),
            action("c1", "p2"),
        );
        let (of, text) = events(&[(0, a.id), (1, busy.id), (2, gone.id), (3, d.id)]);
        let group = unfenced(&[&a, &busy, &gone, &d], &[], (&of, &text), 7);
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert_eq!(done.inserted, HashSet::from([a.id, d.id]));
        assert!(done.updated.is_empty());
        assert_eq!(done.clusters, HashSet::from(["c1".to_string()]));
        assert_eq!(done.revision, Some(2));
        assert_eq!(
            logged(&mut conn, 0).await,
            [(1, 2, 7, "e0".to_string()), (2, 2, 7, "e3".to_string())]
        );

        // `a` finishes (generation 1 → 2); `d` is moved from a generation it no longer has.
        let mut a2 = a.clone();
        a2.state = ActionState::Succeeded;
        a2.generation = 2;
        let mut d2 = d.clone();
        d2.generation = 6;
        let (of, text) = events(&[(4, d.id), (5, a.id)]);
        let group = unfenced(&[], &[(&a2, 1), (&d2, 5)], (&of, &text), 8);
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert_eq!(done.updated, HashSet::from([a.id]));
        assert_eq!(done.revision, Some(3));
        assert_eq!(logged(&mut conn, 2).await, [(3, 3, 8, "e5".to_string())]);
        let stored = action_get(&mut conn, a.id).await.unwrap().unwrap();
        assert_eq!(
            (stored.state, stored.generation),
            (ActionState::Succeeded, 2)
        );
        assert_eq!(
            action_get(&mut conn, d.id)
                .await
                .unwrap()
                .unwrap()
                .generation,
            1
        );

        // The pod is free again; a stale move alone writes and appends nothing.
        let (of, text) = events(&[(6, d.id)]);
        let group = unfenced(&[&busy], &[(&d2, 5)], (&of, &text), 9);
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert_eq!(done.inserted, HashSet::from([busy.id]));
        assert!(done.updated.is_empty());
        assert_eq!(done.revision, None);
        assert_eq!(target_revision(&mut conn, "actions").await.unwrap(), (3, 0));

        // Everything written: the events' text is the log row as it is, two moves of
        // one action included.
        let mut d1 = d.clone();
        d1.generation = 2;
        let (of, text) = events(&[(7, d.id), (8, d.id)]);
        let group = unfenced(&[], &[(&d1, 1)], (&of, &text), 10);
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert_eq!(
            (done.updated, done.revision),
            (HashSet::from([d.id]), Some(5))
        );
        let (row,): (String,) =
            sqlx::query_as("SELECT events FROM watch_log WHERE target = 'actions' AND last = 5")
                .fetch_one(&mut *conn)
                .await
                .unwrap();
        assert_eq!(row, text);
        assert_eq!(
            logged(&mut conn, 3).await,
            [(4, 5, 10, "e7".to_string()), (5, 5, 10, "e8".to_string())]
        );
        drop(conn);
        store.close().await;
        flotilla_tests::drop_postgres_database(&url);
    }

    /// A fenced change is written only while its cluster's fence holds the claimed
    /// epoch; the unfenced changes of the group are written either way, and the
    /// clusters whose fence moved are named.
    #[tokio::test]
    async fn fenced_changes_need_their_fence_postgres() {
        let (url, store) = with_cluster_c1().await;
        let mut conn = store.autocommit(false).await.unwrap();
        sqlx::query("INSERT INTO cluster_fences (cluster, epoch) VALUES ('c1', 5)")
            .execute(&mut *conn)
            .await
            .unwrap();
        let (passed, direct) = (action("c1", "p1"), action("c1", "p2"));
        let (of, text) = events(&[(0, passed.id), (1, direct.id)]);
        let mut group = unfenced(&[&passed, &direct], &[], (&of, &text), 7);
        group.inserts[0].1 = true;
        // Another replica took c1 (epoch 5): the claim of epoch 4 is stale.
        group.claims = vec![("c1", 4)];
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert_eq!(done.inserted, HashSet::from([direct.id]));
        assert_eq!(done.fenced_out, HashSet::from(["c1".to_string()]));
        assert!(action_get(&mut conn, passed.id).await.unwrap().is_none());

        // With the epoch the fence holds, it is written; a fenced move likewise.
        group.claims = vec![("c1", 5)];
        group.inserts.truncate(1);
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert_eq!(done.inserted, HashSet::from([passed.id]));
        assert!(done.fenced_out.is_empty());
        let mut moved = passed.clone();
        moved.state = ActionState::Running;
        moved.generation = 2;
        let (of, text) = events(&[(2, passed.id)]);
        let mut group = unfenced(&[], &[(&moved, 1)], (&of, &text), 8);
        group.moves[0].2 = true;
        group.claims = vec![("c1", 6)];
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert!(done.updated.is_empty());
        assert_eq!(done.revision, None);
        group.claims = vec![("c1", 5)];
        let done = action_write_at_once(&mut conn, &group).await.unwrap();
        assert_eq!(done.updated, HashSet::from([passed.id]));
        drop(conn);
        store.close().await;
        flotilla_tests::drop_postgres_database(&url);
    }
}
