//! The lifecycle history of deployment intent groups and cluster network intents:
//! one row per verb, `{state, instance, time, revision}`, ordered by `seq`. The
//! `state` column holds the recorded event's name ([`Recorded`]).

use sqlx::{AnyConnection, Row};

use super::watch::NewEvent;
use super::{Tx, now_micros, run};
use crate::domain::lifecycle::Recorded;
use crate::error::{Error, Result};
use crate::ids::InstanceId;

/// The lifecycle state a watch reports when its target was deleted.
pub const DELETED: &str = "DELETED";

/// One recorded verb of an owner whose history records `E`.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HistoryEntry<E> {
    /// What the verb recorded (`state` in the column and in the JSON idempotency
    /// records keep: for most verbs it is the state).
    #[serde(rename = "state")]
    pub event: E,
    /// The instance the verb rendered or acted on; none for verbs without one
    /// (create, approve, update).
    #[serde(with = "instance_text")]
    pub instance: Option<InstanceId>,
    pub time: i64,
    pub revision: i64,
}

/// Appends `event` to `owner`'s history; watchers are told the state it leaves the
/// owner in. Callers hold the owner's row (a CAS update in the same transaction), so
/// `seq` cannot race.
pub async fn history_append(
    tx: &mut Tx,
    owner: &str,
    event: impl Recorded,
    instance: Option<InstanceId>,
    revision: i64,
) -> Result<()> {
    // The owner's current instance before this verb: the last one its history names.
    let previous: String = sqlx::query(
        "SELECT instance FROM lifecycle_history WHERE owner = $1 AND instance <> '' \
         ORDER BY seq DESC LIMIT 1",
    )
    .bind(owner)
    .fetch_optional(&mut **tx)
    .await?
    .map(|r| r.try_get("instance"))
    .transpose()?
    .unwrap_or_default();
    let instance = instance_text::column(instance);
    let current = if instance.is_empty() {
        previous.clone()
    } else {
        instance.clone()
    };
    tx.emit(NewEvent::lifecycle(
        owner,
        event.state_name(),
        &current,
        &previous,
    ));
    let conn: &mut AnyConnection = tx;
    let sql = "INSERT INTO lifecycle_history (owner, seq, state, instance, time, revision) \
               SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5 \
               FROM lifecycle_history WHERE owner = $1";
    let query = sqlx::query(sql)
        .bind(owner)
        .bind(event.name())
        .bind(instance)
        .bind(now_micros())
        .bind(revision);
    run(conn, query).await
}

/// The history of `owner`, oldest first.
pub async fn history_list<E: Recorded>(
    conn: &mut AnyConnection,
    owner: &str,
) -> Result<Vec<HistoryEntry<E>>> {
    let rows = sqlx::query(
        "SELECT state, instance, time, revision FROM lifecycle_history \
         WHERE owner = $1 ORDER BY seq",
    )
    .bind(owner)
    .fetch_all(conn)
    .await?;
    rows.iter()
        .map(|row| {
            Ok(HistoryEntry {
                event: row
                    .try_get::<String, _>("state")?
                    .parse()
                    .map_err(Error::internal)?,
                instance: instance_text::parse(row.try_get("instance")?)?,
                time: row.try_get("time")?,
                revision: row.try_get("revision")?,
            })
        })
        .collect()
}

/// `owner`'s content revision moved while its state did not (an edit kept as a
/// pending revision): its watchers get a lifecycle event naming the same state and
/// instance, so a page showing the group reads it again. No history row: no verb ran.
pub fn revision_changed(tx: &mut Tx, owner: &str, state: &str, instance: Option<InstanceId>) {
    let instance = instance_text::column(instance);
    tx.emit(NewEvent::lifecycle(owner, state, &instance, &instance));
}

/// Deletes `owner`'s history (the owner is being deleted), telling its watchers with a
/// lifecycle event of state `DELETED`.
pub async fn history_delete(tx: &mut Tx, owner: &str) -> Result<()> {
    tx.emit(NewEvent::lifecycle(owner, DELETED, "", ""));
    sqlx::query("DELETE FROM lifecycle_history WHERE owner = $1")
        .bind(owner)
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// An optional instance id as its text, "" for none: the `instance` column's codec,
/// and the JSON of a [`HistoryEntry`] (idempotency records keep responses with
/// histories in them, written in this shape).
mod instance_text {
    use serde::{Deserialize, Deserializer, Serializer};

    use super::*;

    pub fn column(instance: Option<InstanceId>) -> String {
        instance.map(|i| i.to_string()).unwrap_or_default()
    }

    pub fn parse(text: String) -> Result<Option<InstanceId>> {
        match text.as_str() {
            "" => Ok(None),
            id => id.parse().map(Some).map_err(Error::internal),
        }
    }

    pub fn serialize<S: Serializer>(
        instance: &Option<InstanceId>,
        s: S,
    ) -> std::result::Result<S::Ok, S::Error> {
        s.serialize_str(&column(*instance))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> std::result::Result<Option<InstanceId>, D::Error> {
        parse(String::deserialize(d)?).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::domain::lifecycle::DigEvent;

    #[test]
    fn an_entry_keeps_the_json_shape_idempotency_records_hold() {
        // Written before the instance was typed: "" for a verb without one.
        let old = r#"{"state":"APPROVED","instance":"","time":5,"revision":2}"#;
        let entry: HistoryEntry<DigEvent> = serde_json::from_str(old).unwrap();
        assert_eq!(entry.instance, None);
        assert_eq!(serde_json::to_string(&entry).unwrap(), old);
        let id = InstanceId::new();
        let with = HistoryEntry {
            instance: Some(id),
            ..entry
        };
        let text = serde_json::to_string(&with).unwrap();
        assert!(text.contains(&format!(r#""instance":"{id}""#)), "{text}");
        assert_eq!(
            serde_json::from_str::<HistoryEntry<DigEvent>>(&text).unwrap(),
            with
        );
        // Anything else is a corrupt record, not an absent instance.
        let bad = r#"{"state":"APPROVED","instance":"x","time":5,"revision":2}"#;
        assert!(serde_json::from_str::<HistoryEntry<DigEvent>>(bad).is_err());
        let unknown = r#"{"state":"EXPLODED","instance":"","time":5,"revision":2}"#;
        assert!(serde_json::from_str::<HistoryEntry<DigEvent>>(unknown).is_err());
    }
}
