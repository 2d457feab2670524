-- The ownership epoch of each cluster run by a replica set (--coordination etcd): the
-- etcd revision at which its current owner took it. A takeover only raises it; writes
-- made for a cluster check it in their own transaction (fencing).
CREATE TABLE cluster_fences (
    cluster TEXT PRIMARY KEY,
    epoch BIGINT NOT NULL
);
