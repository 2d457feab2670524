-- The event log stores a transaction's events for a target in rows of up to 512
-- consecutive events (a JSON array) instead of one row per event. Appending 1,000
-- events was 1,000 row and 2,000 index insertions; it is now two rows.
-- first..last: the rows' revisions (contiguous); batch: the last revision of the
-- writing transaction, as before; time: the transaction's time.
CREATE TABLE watch_log (
    target TEXT NOT NULL,
    first BIGINT NOT NULL,
    last BIGINT NOT NULL,
    batch BIGINT NOT NULL,
    time BIGINT NOT NULL,
    events TEXT NOT NULL,
    PRIMARY KEY (target, last)
);
CREATE INDEX watch_log_time ON watch_log (time);

-- The log so far, one event per row (its batch kept, so a resumed stream still sees
-- where each transaction ends).
INSERT INTO watch_log (target, first, last, batch, time, events)
SELECT target, revision, revision, batch, time,
       '[' || json_object('instance', instance_id, 'app', app, 'cluster', cluster,
                          'name', name, 'payload', json(payload)) || ']'
FROM watch_events;

DROP TABLE watch_events;
