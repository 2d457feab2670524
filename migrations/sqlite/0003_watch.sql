-- The status event log (transactional outbox) behind WatchStatus, and instance-level
-- status totals.

-- One row per watch target (a deployment intent group or a cluster, by resource name):
-- the revision of its last event, and the highest revision compaction removed (a
-- resume token at or below it can no longer be replayed).
CREATE TABLE watch_targets (
    target TEXT PRIMARY KEY,
    revision BIGINT NOT NULL,
    compacted BIGINT NOT NULL DEFAULT 0
);

-- The events, appended in the transaction of the change they describe. revision is
-- contiguous per target; batch is the last revision of the writing transaction (an
-- event with revision = batch ends its transaction).
-- kind: resource | lifecycle | connectivity; payload: the event as JSON. instance_id,
-- app, cluster and name are copied out of the payload for filtering.
CREATE TABLE watch_events (
    target TEXT NOT NULL,
    revision BIGINT NOT NULL,
    batch BIGINT NOT NULL,
    time BIGINT NOT NULL,
    kind TEXT NOT NULL,
    instance_id TEXT NOT NULL,
    app TEXT NOT NULL,
    cluster TEXT NOT NULL,
    name TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (target, revision)
);
CREATE INDEX watch_events_time ON watch_events (time);

-- Status totals per instance (the sum of status_counts over apps and clusters), kept in
-- the same transactions, so a summary reads a handful of rows.
CREATE TABLE status_totals (
    instance_id TEXT NOT NULL,
    dimension TEXT NOT NULL,
    value TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (instance_id, dimension, value)
);
INSERT INTO status_totals (instance_id, dimension, value, count)
SELECT instance_id, dimension, value, CAST(SUM(count) AS BIGINT) FROM status_counts
GROUP BY instance_id, dimension, value;
