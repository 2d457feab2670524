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
        /// rsync deleted it from the cluster (or it was never applied and its
        /// instance was terminated).
        Terminated = "Terminated",
        /// A newer instance of the same owner renders the same object on the same
        /// cluster and took it over: this instance no longer acts on it, nor deletes it.
        Superseded = "Superseded",
    }
}

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
