//! Status values of rendered resources.

use std::fmt;
use std::str::FromStr;

/// The rsync status of a rendered resource (seed 000).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RsyncStatus {
    /// Rendered, not yet handled by rsync.
    Pending,
    /// The cluster accepted it.
    Applied,
    /// The cluster rejected an apply or delete; no further action.
    Failed,
    /// The cluster is unreachable; rsync retries.
    Retrying,
    /// rsync deleted it from the cluster.
    Terminated,
}

impl RsyncStatus {
    pub const ALL: [RsyncStatus; 5] = [
        RsyncStatus::Pending,
        RsyncStatus::Applied,
        RsyncStatus::Failed,
        RsyncStatus::Retrying,
        RsyncStatus::Terminated,
    ];

    /// The stored and displayed form (the seed's names).
    pub fn as_str(self) -> &'static str {
        match self {
            RsyncStatus::Pending => "Pending",
            RsyncStatus::Applied => "Applied",
            RsyncStatus::Failed => "Failed",
            RsyncStatus::Retrying => "Retrying",
            RsyncStatus::Terminated => "Terminated",
        }
    }

    /// Whether rsync may still act on a resource in this status after its instance was
    /// terminated (its delete is not finished).
    pub fn awaits_delete(self) -> bool {
        matches!(self, RsyncStatus::Applied | RsyncStatus::Retrying)
    }
}

impl fmt::Display for RsyncStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for RsyncStatus {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        RsyncStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == s)
            .ok_or_else(|| format!("unknown rsync status {s:?}"))
    }
}
