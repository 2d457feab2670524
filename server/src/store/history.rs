//! The lifecycle history of deployment intent groups and cluster network intents:
//! one row per verb, `{state, instance, time, revision}`, ordered by `seq`.

use sqlx::{AnyConnection, Row};

use super::watch::NewEvent;
use super::{Tx, now_micros, run};
use crate::error::{Error, Result};
use crate::ids::InstanceId;

/// The lifecycle state a watch reports when its target was deleted.
pub const DELETED: &str = "DELETED";

/// One recorded verb.
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HistoryEntry {
    pub state: String,
    /// The instance the verb rendered or acted on; none for verbs without one
    /// (create, approve, update).
    #[serde(with = "instance_text")]
    pub instance: Option<InstanceId>,
    pub time: i64,
    pub revision: i64,
}

/// Appends an entry to `owner`'s history: `recorded` is what the entry says (the
/// state, or an event such as UPDATED that leaves the state alone), `state` the state
/// watchers are told. Callers hold the owner's row (a CAS update in the same
/// transaction), so `seq` cannot race.
pub async fn history_append(
    tx: &mut Tx,
    owner: &str,
    recorded: &str,
    state: &str,
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
    tx.emit(NewEvent::lifecycle(owner, state, &current, &previous));
    let conn: &mut AnyConnection = tx;
    let sql = "INSERT INTO lifecycle_history (owner, seq, state, instance, time, revision) \
               SELECT $1, COALESCE(MAX(seq), 0) + 1, $2, $3, $4, $5 \
               FROM lifecycle_history WHERE owner = $1";
    let query = sqlx::query(sql)
        .bind(owner)
        .bind(recorded)
        .bind(instance)
        .bind(now_micros())
        .bind(revision);
    run(conn, query).await
}

/// The history of `owner`, oldest first.
pub async fn history_list(conn: &mut AnyConnection, owner: &str) -> Result<Vec<HistoryEntry>> {
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
                state: row.try_get("state")?,
                instance: instance_text::parse(row.try_get("instance")?)?,
                time: row.try_get("time")?,
                revision: row.try_get("revision")?,
            })
        })
        .collect()
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

    #[test]
    fn an_entry_keeps_the_json_shape_idempotency_records_hold() {
        // Written before the instance was typed: "" for a verb without one.
        let old = r#"{"state":"APPROVED","instance":"","time":5,"revision":2}"#;
        let entry: HistoryEntry = serde_json::from_str(old).unwrap();
        assert_eq!(entry.instance, None);
        assert_eq!(serde_json::to_string(&entry).unwrap(), old);
        let id = InstanceId::new();
        let with = HistoryEntry {
            instance: Some(id),
            ..entry
        };
        let text = serde_json::to_string(&with).unwrap();
        assert!(text.contains(&format!(r#""instance":"{id}""#)), "{text}");
        assert_eq!(serde_json::from_str::<HistoryEntry>(&text).unwrap(), with);
        // Anything else is a corrupt record, not an absent instance.
        let bad = r#"{"state":"APPROVED","instance":"x","time":5,"revision":2}"#;
        assert!(serde_json::from_str::<HistoryEntry>(bad).is_err());
    }
}
