//! The events of the log: what a change tells its watchers, as buffered on a
//! transaction ([`NewEvent`]) and as read back with its revision ([`Event`]).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::domain::container_cluster::ClusterState;
use crate::domain::readiness::{ClusterStatus, Connectivity, Readiness};
use crate::domain::status::RsyncStatus;
use crate::store::rsync_resource::ResourceKey;

/// The rsync status, cluster status and readiness of a resource.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Statuses {
    /// None for a resource nothing rendered (cluster-only).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_name"
    )]
    pub rsync: Option<RsyncStatus>,
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        with = "optional_name"
    )]
    pub cluster: Option<ClusterStatus>,
    #[serde(default, skip_serializing_if = "Readiness::is_none")]
    pub readiness: Readiness,
}

/// An optional status as its stored name, "" (or absent) for none.
mod optional_name {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<T: Copy + serde::Serialize, S: Serializer>(
        value: &Option<T>,
        s: S,
    ) -> Result<S::Ok, S::Error> {
        match value {
            Some(value) => value.serialize(s),
            None => s.serialize_str(""),
        }
    }

    pub fn deserialize<'de, T: std::str::FromStr<Err = String>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Option<T>, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        text.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

/// What an event says.
// Resource events are nearly all events: boxing that variant would cost an allocation
// per event to save bytes on the rare others.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum Payload {
    /// A resource's statuses changed (`old` = None: a cluster-only resource appeared).
    Resource {
        kind: String,
        group: String,
        version: String,
        namespace: String,
        /// A rendered (rsync) resource rather than a cluster-only one.
        rendered: bool,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        old: Option<Statuses>,
        new: Statuses,
        /// {"metadata", "spec", "status"} from the cluster, when the change came with it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        body: Option<Body>,
    },
    /// The owner's lifecycle state changed; `instance` is its current instance after
    /// the change, `previous` the one before ("" = none).
    Lifecycle {
        state: String,
        instance: String,
        previous: String,
    },
    /// The connectivity of the event's cluster changed, from `previous` (absent in
    /// events stored before it was recorded).
    Connectivity {
        connectivity: Connectivity,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        previous: Option<Connectivity>,
    },
    /// An action was added, modified or deleted (WatchActions targets only); `record`
    /// is the action as stored after the change (before it, for a deletion).
    Action { change: ActionChange, record: Body },
    /// A container cluster was added, modified or destroyed (WatchContainerClusters);
    /// `record` is the cluster as stored after the change, `previous` its state before.
    ContainerCluster {
        change: ActionChange,
        #[serde(
            default,
            skip_serializing_if = "Option::is_none",
            with = "cluster_state_by_name"
        )]
        previous: Option<ClusterState>,
        record: Body,
    },
}

/// A container cluster's previous state in an event: its name (`CREATED`), absent or
/// "" for none.
mod cluster_state_by_name {
    use std::borrow::Cow;

    use serde::{Deserialize, Deserializer, Serializer};

    use crate::domain::container_cluster::ClusterState;

    pub fn serialize<S: Serializer>(state: &Option<ClusterState>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(state.map_or("", ClusterState::as_str))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<ClusterState>, D::Error> {
        let text = <Cow<'de, str>>::deserialize(d)?;
        if text.is_empty() {
            return Ok(None);
        }
        text.parse().map(Some).map_err(serde::de::Error::custom)
    }
}

/// What happened to an action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionChange {
    Added,
    Modified,
    Deleted,
}

/// An event about to be appended.
#[derive(Debug, Clone)]
pub struct NewEvent {
    pub target: String,
    pub instance: String,
    pub app: String,
    pub cluster: String,
    /// The resource name, for resource events.
    pub name: String,
    pub payload: Payload,
}

impl NewEvent {
    /// A resource event of `instance`'s resource `key` for the watchers of `target`.
    #[allow(clippy::too_many_arguments)]
    pub fn resource(
        target: &str,
        instance: &str,
        key: &ResourceKey,
        version: &str,
        rendered: bool,
        old: Option<Statuses>,
        new: Statuses,
        body: Option<Body>,
    ) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: instance.to_string(),
            app: key.app.clone(),
            cluster: key.cluster.to_string(),
            name: key.name.clone(),
            payload: Payload::Resource {
                kind: key.kind.clone(),
                group: key.group.clone(),
                version: version.to_string(),
                namespace: key.namespace.clone(),
                rendered,
                old,
                new,
                body,
            },
        }
    }
}

impl NewEvent {
    /// A lifecycle event of `target`: its state, current and previous instance.
    pub fn lifecycle(target: &str, state: &str, instance: &str, previous: &str) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: instance.to_string(),
            app: String::new(),
            cluster: String::new(),
            name: String::new(),
            payload: Payload::Lifecycle {
                state: state.to_string(),
                instance: instance.to_string(),
                previous: previous.to_string(),
            },
        }
    }

    /// `cluster`'s connectivity, changed from `previous`, for the watchers of `target`.
    pub fn connectivity(
        target: &str,
        cluster: &str,
        previous: Option<Connectivity>,
        connectivity: Connectivity,
    ) -> NewEvent {
        NewEvent {
            target: target.to_string(),
            instance: String::new(),
            app: String::new(),
            cluster: cluster.to_string(),
            name: String::new(),
            payload: Payload::Connectivity {
                connectivity,
                previous,
            },
        }
    }
}

/// An event of the log.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub revision: i64,
    /// The last revision of the transaction that wrote the event: the event ends its
    /// transaction when `revision == batch`.
    pub batch: i64,
    /// Microseconds since the epoch.
    pub time: i64,
    pub instance: String,
    pub app: String,
    pub cluster: String,
    pub name: String,
    pub payload: Payload,
}

/// A resource's {"metadata", "spec", "status"} as reported by its cluster, held as the
/// JSON text it is stored and sent as: a report waiting for ingest, an event in a
/// feed's tail or in a transaction's buffer costs its text, not a tree of maps (a
/// fleet's queued reports were most of the server's memory while converging).
#[derive(Debug, Clone)]
pub struct Body(Box<RawValue>);

impl Body {
    /// `{"metadata": …, "spec": …, "status": …}`.
    pub fn of(metadata: &Value, spec: &Value, status: &Value) -> Body {
        #[derive(Serialize)]
        struct Parts<'a> {
            metadata: &'a Value,
            spec: &'a Value,
            status: &'a Value,
        }
        let text = serde_json::to_string(&Parts {
            metadata,
            spec,
            status,
        })
        .expect("JSON values serialize");
        Body(RawValue::from_string(text).expect("serde_json writes valid JSON"))
    }

    /// A body stored as JSON text (None if it is not valid JSON).
    pub fn from_text(text: String) -> Option<Body> {
        RawValue::from_string(text).ok().map(Body)
    }

    /// The JSON text.
    pub fn text(&self) -> &str {
        self.0.get()
    }

    /// The body as a JSON value (for DETAIL output).
    pub fn value(&self) -> Value {
        serde_json::from_str(self.text()).unwrap_or_default()
    }
}

impl PartialEq for Body {
    fn eq(&self, other: &Body) -> bool {
        self.text() == other.text()
    }
}

/// Written into the log as the JSON object it is (not re-encoded).
impl Serialize for Body {
    fn serialize<S: Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

/// Read back through a value: the payload is an internally tagged enum, whose fields
/// serde buffers before decoding them, which raw JSON text cannot pass through.
impl<'de> Deserialize<'de> for Body {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> std::result::Result<Body, D::Error> {
        let value = Value::deserialize(deserializer)?;
        RawValue::from_string(value.to_string())
            .map(Body)
            .map_err(serde::de::Error::custom)
    }
}
