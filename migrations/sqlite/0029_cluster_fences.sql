-- The ownership epoch of each cluster run by a replica set. Replica sets need
-- PostgreSQL; the table is here so both backends have one schema.
CREATE TABLE cluster_fences (
    cluster TEXT PRIMARY KEY,
    epoch BIGINT NOT NULL
);
