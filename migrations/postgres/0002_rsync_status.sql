-- Agents, rsync and cluster status.

-- Clusters: the hash of the agent token (sha256 hex, '' = none) and the connectivity
-- rsync tracks (Unknown | Available | Retrying).
ALTER TABLE clusters ADD COLUMN agent_token_hash TEXT NOT NULL DEFAULT '';
ALTER TABLE clusters ADD COLUMN connectivity TEXT NOT NULL DEFAULT 'Unknown';
CREATE INDEX clusters_agent_token_hash ON clusters (agent_token_hash);

-- Instances: set when a newer instance of the same owner exists; rsync stops acting on
-- superseded instances (re-instantiating cancels the old instance's retries).
ALTER TABLE instances ADD COLUMN superseded BIGINT NOT NULL DEFAULT 0;

-- Rendered resources: their cluster status (Unknown | NotPresent | Present) and
-- readiness ('' | Ready | NotReady), derived from ResourceBundleStates.
ALTER TABLE rsync_resources ADD COLUMN cluster_status TEXT NOT NULL DEFAULT 'Unknown';
ALTER TABLE rsync_resources ADD COLUMN readiness TEXT NOT NULL DEFAULT '';

-- What the cluster reported for an app of an instance: every labelled resource of a
-- monitored kind. rsync_backed = 1 when a rendered resource matches it; cluster-only
-- resources (the Pods of a Deployment) have rsync_backed = 0 and stay listed with
-- present = 0 when they disappear. body = {"metadata", "spec", "status"} as JSON.
CREATE TABLE cluster_resources (
    instance_id TEXT NOT NULL,
    app TEXT NOT NULL,
    cluster TEXT NOT NULL,
    kind TEXT NOT NULL,
    api_group TEXT NOT NULL,
    api_version TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    rsync_backed BIGINT NOT NULL,
    present BIGINT NOT NULL,
    readiness TEXT NOT NULL,
    body TEXT NOT NULL,
    PRIMARY KEY (instance_id, app, cluster, kind, api_group, namespace, name)
);

-- Status aggregates, maintained in the same transaction as every status change so
-- status queries never count by scanning resources. dimension: rsync | cluster |
-- readiness; value: the status; count: resources (rendered and cluster-only).
CREATE TABLE status_counts (
    instance_id TEXT NOT NULL,
    app TEXT NOT NULL,
    cluster TEXT NOT NULL,
    dimension TEXT NOT NULL,
    value TEXT NOT NULL,
    count BIGINT NOT NULL,
    PRIMARY KEY (instance_id, app, cluster, dimension, value)
);

-- Conditions (Cluster API semantics) of intent groups and clusters, as JSON lists;
-- recomputed in the transactions that change what they summarise.
ALTER TABLE deployment_intent_groups ADD COLUMN conditions TEXT NOT NULL DEFAULT '[]';
ALTER TABLE clusters ADD COLUMN conditions TEXT NOT NULL DEFAULT '[]';

-- Status queries filtered by resource name.
CREATE INDEX rsync_resources_instance_name ON rsync_resources (instance_id, name);
CREATE INDEX cluster_resources_instance_name ON cluster_resources (instance_id, name);
