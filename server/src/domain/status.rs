//! Status values of rendered resources.

super::named_enum! {
    /// The rsync status of a rendered resource (seed 000), by the seed's names.
    #[derive(PartialOrd, Ord)]
    pub enum RsyncStatus ("rsync status") {
        /// Rendered, not yet handled by rsync.
        Pending,
        /// The cluster accepted it.
        Applied,
        /// The cluster rejected an apply or delete; no further action.
        Failed,
        /// The cluster is unreachable; rsync retries.
        Retrying,
        /// rsync deleted it from the cluster (or it was never applied and its
        /// instance was terminated).
        Terminated,
        /// A newer instance of the same owner renders the same object on the same
        /// cluster and took it over: this instance no longer acts on it, nor deletes it.
        Superseded,
    }
}

super::serde_by_name!(RsyncStatus);

impl RsyncStatus {
    /// Whether rsync may still act on a resource in this status after its instance was
    /// terminated (its delete is not finished).
    pub fn awaits_delete(self) -> bool {
        matches!(self, RsyncStatus::Applied | RsyncStatus::Retrying)
    }

    /// The statuses in which an instance holds its object on the cluster: rsync has
    /// applied it, or will apply or delete it. Another owner cannot render the same
    /// object there meanwhile.
    pub const HOLDING: [RsyncStatus; 3] = [
        RsyncStatus::Pending,
        RsyncStatus::Applied,
        RsyncStatus::Retrying,
    ];
}

/// A key of the status counts: a dimension (`rsync`, `cluster`, `readiness`, as
/// stored) and one of its values. Resources with no readiness are not counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum CountKey {
    Rsync(RsyncStatus),
    Cluster(crate::domain::readiness::ClusterStatus),
    Readiness(crate::domain::readiness::Readiness),
}

impl CountKey {
    /// The stored name of the key's dimension.
    pub fn dimension(self) -> &'static str {
        match self {
            CountKey::Rsync(_) => "rsync",
            CountKey::Cluster(_) => "cluster",
            CountKey::Readiness(_) => "readiness",
        }
    }

    /// The stored name of the key's value.
    pub fn value(self) -> &'static str {
        match self {
            CountKey::Rsync(status) => status.as_str(),
            CountKey::Cluster(status) => status.as_str(),
            CountKey::Readiness(readiness) => readiness.as_str(),
        }
    }

    /// The key of a stored dimension and value; None for a value the dimension does
    /// not count ("", or a name no variant has).
    pub fn parse(dimension: &str, value: &str) -> Option<CountKey> {
        use crate::domain::readiness::{ClusterStatus, Readiness};
        match dimension {
            "rsync" => value.parse().ok().map(CountKey::Rsync),
            "cluster" => ClusterStatus::parse(value).map(CountKey::Cluster),
            "readiness" => Readiness::parse(value)
                .filter(|r| *r != Readiness::None)
                .map(CountKey::Readiness),
            _ => None,
        }
    }
}

/// How many resources count under each key (absent: none).
pub type Counts = std::collections::BTreeMap<CountKey, i64>;

/// The count of `key` in `counts`.
pub fn count_of(counts: &Counts, key: CountKey) -> i64 {
    counts.get(&key).copied().unwrap_or(0)
}
