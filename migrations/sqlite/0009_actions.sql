-- Actions (seed 003): imperative operations on pods and nodes, executed by agents.
--   spec        JSON: {"target": {"kind": "pod", "namespace", "pod"} | {"kind": "node"},
--               "operation": {"name": "Reboot", "delay_in_seconds"} | {"name": "Snapshot", ...}}
--   state       PENDING | RUNNING | SUCCEEDED | FAILED | CANCELLED
--   executor    who runs it: '' (nobody yet), 'session' (the cluster's agent session),
--               'node:<token id>' (a node agent)
--   status      JSON: results, error and reason, start/finish times, conditions
--   generation  bumped by every change: the etag and the compare-and-swap token
--   open_key    '<cluster>|pod|<ns>/<pod>' or '<cluster>|node|<node>' while PENDING or
--               RUNNING, NULL once finished: its unique index lets one action at a time be
--               open per pod or node, enforced by the database
--   deadline    open actions: when they fail with DeadlineExceeded (not picked up, or
--               running too long)
--   expire_time finished actions: when they are deleted
CREATE TABLE actions (
    id TEXT PRIMARY KEY,
    cluster TEXT NOT NULL,
    node TEXT NOT NULL,
    namespace TEXT NOT NULL,
    pod TEXT NOT NULL,
    action_name TEXT NOT NULL,
    spec TEXT NOT NULL,
    state TEXT NOT NULL,
    executor TEXT NOT NULL,
    status TEXT NOT NULL,
    generation BIGINT NOT NULL,
    open_key TEXT,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL,
    deadline BIGINT,
    expire_time BIGINT
);
CREATE UNIQUE INDEX actions_open_key ON actions (open_key);
CREATE INDEX actions_cluster ON actions (cluster, id);
CREATE INDEX actions_pod ON actions (cluster, namespace, pod, id);
CREATE INDEX actions_deadline ON actions (deadline) WHERE deadline IS NOT NULL;
CREATE INDEX actions_expire_time ON actions (expire_time) WHERE expire_time IS NOT NULL;

-- Actions name pods by cluster, namespace and name; the server knows them from what
-- the agents report.
CREATE INDEX cluster_resources_pods ON cluster_resources (cluster, namespace, name) WHERE kind = 'Pod';

-- The nodes a cluster's agent reported in its last hello (JSON array).
ALTER TABLE clusters ADD COLUMN nodes TEXT NOT NULL DEFAULT '[]';
