//! Status values of rendered resources.

super::named_enum! {
    /// The rsync status of a rendered resource (seed 000), by the seed's names.
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
    pub enum RsyncStatus ("rsync status") {
        /// Rendered, not yet handled by rsync.
        Pending = "Pending",
        /// The cluster accepted it.
        Applied = "Applied",
        /// The cluster rejected an apply or delete; no further action.
        Failed = "Failed",
        /// The cluster is unreachable; rsync retries.
        Retrying = "Retrying",
        /// rsync deleted it from the cluster.
        Terminated = "Terminated",
    }
}

impl RsyncStatus {
    /// Whether rsync may still act on a resource in this status after its instance was
    /// terminated (its delete is not finished).
    pub fn awaits_delete(self) -> bool {
        matches!(self, RsyncStatus::Applied | RsyncStatus::Retrying)
    }
}
