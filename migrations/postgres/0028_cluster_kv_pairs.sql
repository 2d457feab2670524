-- Cluster kv pairs (flotilla.v1.ClusterKvPair): a plain kind, the columns every
-- resource table shares.
CREATE TABLE cluster_kv_pairs (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);
CREATE INDEX cluster_kv_pairs_parent ON cluster_kv_pairs (parent, name);
