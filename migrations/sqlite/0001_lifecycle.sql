-- The EMCO resource model. Every resource table has the same core columns:
--   name        the full resource path (AIP-122), primary key
--   parent      the parent's path ('' for top-level kinds), for listing and child checks
--   uid         a UUID v7 assigned at create
--   body        the kind's spec as JSON
--   generation  bumped by every write; the etag and the compare-and-swap token
--   create_time, update_time  microseconds since the Unix epoch

CREATE TABLE projects (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);

CREATE TABLE composite_apps (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);
CREATE INDEX composite_apps_parent ON composite_apps (parent, name);

CREATE TABLE apps (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);
CREATE INDEX apps_parent ON apps (parent, name);

CREATE TABLE composite_profiles (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);
CREATE INDEX composite_profiles_parent ON composite_profiles (parent, name);

CREATE TABLE app_profiles (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);
CREATE INDEX app_profiles_parent ON app_profiles (parent, name);

-- Deployment intent groups also carry their lifecycle state:
--   state             CREATED | APPROVED | INSTANTIATED | TERMINATED
--   revision          content revision: bumped by changes of the group, its intents,
--                     and the apps and profiles it uses
--   approved_hash     hash of the content pinned by the last approval ('' if none)
--   current_instance  the last instance id ('' before the first instantiate)
CREATE TABLE deployment_intent_groups (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL,
    state TEXT NOT NULL,
    revision BIGINT NOT NULL,
    approved_hash TEXT NOT NULL,
    current_instance TEXT NOT NULL,
    composite_profile TEXT NOT NULL
);
CREATE INDEX deployment_intent_groups_parent ON deployment_intent_groups (parent, name);

CREATE TABLE placement_intents (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);
CREATE INDEX placement_intents_parent ON placement_intents (parent, name);

CREATE TABLE cluster_providers (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);

-- Clusters also carry the state of their network intents (same meaning as above).
CREATE TABLE clusters (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL,
    network_state TEXT NOT NULL,
    network_revision BIGINT NOT NULL,
    current_network_instance TEXT NOT NULL
);
CREATE INDEX clusters_parent ON clusters (parent, name);

CREATE TABLE network_intents (
    name TEXT PRIMARY KEY, parent TEXT NOT NULL, uid TEXT NOT NULL, body TEXT NOT NULL,
    generation BIGINT NOT NULL, create_time BIGINT NOT NULL, update_time BIGINT NOT NULL
);
CREATE INDEX network_intents_parent ON network_intents (parent, name);

-- The lifecycle history of deployment intent groups and cluster network intents.
CREATE TABLE lifecycle_history (
    owner TEXT NOT NULL,
    seq BIGINT NOT NULL,
    state TEXT NOT NULL,
    instance TEXT NOT NULL,
    time BIGINT NOT NULL,
    revision BIGINT NOT NULL,
    PRIMARY KEY (owner, seq)
);

-- Instances: one rendering of an owner (intent group or cluster network intents).
CREATE TABLE instances (
    id TEXT PRIMARY KEY,
    owner TEXT NOT NULL,
    revision BIGINT NOT NULL,
    resource_count BIGINT NOT NULL,
    create_time BIGINT NOT NULL,
    terminate_time BIGINT
);
CREATE INDEX instances_owner ON instances (owner, id);

-- The clusters an instance places resources on.
CREATE TABLE instance_clusters (
    instance_id TEXT NOT NULL,
    cluster TEXT NOT NULL,
    PRIMARY KEY (instance_id, cluster)
);
CREATE INDEX instance_clusters_cluster ON instance_clusters (cluster);

-- The rendered (rsync) resources of an instance.
CREATE TABLE rsync_resources (
    instance_id TEXT NOT NULL,
    app TEXT NOT NULL,
    cluster TEXT NOT NULL,
    kind TEXT NOT NULL,
    api_group TEXT NOT NULL,
    api_version TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    manifest TEXT NOT NULL,
    rsync_status TEXT NOT NULL,
    PRIMARY KEY (instance_id, app, cluster, kind, api_group, namespace, name)
);
CREATE INDEX rsync_resources_cluster ON rsync_resources (cluster, rsync_status);

-- Idempotency keys of creates and verbs: a retry with the same request id returns the
-- recorded response. `scope` is the method and its target.
CREATE TABLE request_ids (
    scope TEXT NOT NULL,
    request_id TEXT NOT NULL,
    request_hash TEXT NOT NULL,
    response TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    PRIMARY KEY (scope, request_id)
);
