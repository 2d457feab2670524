-- The event log stores a transaction's events for a target in rows of up to 512
-- consecutive events (a JSON array) instead of one row per event. Appending 1,000
-- events was 1,000 heap and 2,000 index insertions and most of the time between a
-- change's events being stamped and committed; it is now two rows.
-- first..last: the rows' revisions (contiguous); batch: the last revision of the
-- writing transaction, as before; time: the transaction's time. `events` is compressed
-- with lz4 where the server has it (0015): PostgreSQL < 14 and builds without lz4
-- refuse `COMPRESSION lz4` in a CREATE TABLE, which this file once had.
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
       '[' || json_build_object('instance', instance_id, 'app', app, 'cluster', cluster,
                                'name', name, 'payload', payload::json)::text || ']'
FROM watch_events;

DROP TABLE watch_events;
