-- Container clusters' book-keeping (seed 001, DESIGN §12): the clusters, the
-- cluster<->VM map and the sealed details. No foreign key reaches into the IaaS: a
-- VM's record stays after the IaaS lost it (observed = 'Missing'), which is how state
-- sync and recovery know what is gone.
--
--   state, desired, provisioned  the lifecycle (server/src/domain/container_cluster.rs);
--                                every move a compare-and-swap on generation
--   spec                         JSON: recovery policy, auto-recovery
--   status                       JSON: conditions, endpoint, faults, last failure
--   operation                    JSON of the workflow in flight; NULL when settled
--   next_run                     when background work looks at the cluster next (a
--                                workflow's next step, a garbage collector retry)
CREATE TABLE container_clusters (
    id TEXT PRIMARY KEY,
    display_name TEXT NOT NULL,
    description TEXT NOT NULL,
    account_name TEXT NOT NULL,
    domain_id TEXT NOT NULL,
    zone_id TEXT NOT NULL,
    service_offering_id TEXT NOT NULL,
    size BIGINT NOT NULL,
    network_id TEXT NOT NULL,
    network_cleanup BIGINT NOT NULL,
    infrastructure_ref TEXT NOT NULL,
    state TEXT NOT NULL,
    desired TEXT NOT NULL,
    provisioned BIGINT NOT NULL,
    spec TEXT NOT NULL,
    status TEXT NOT NULL,
    operation TEXT,
    next_run BIGINT,
    generation BIGINT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
);
CREATE INDEX container_clusters_state ON container_clusters (state, id);
CREATE INDEX container_clusters_zone ON container_clusters (zone_id, id);
CREATE INDEX container_clusters_account ON container_clusters (account_name, id);
CREATE INDEX container_clusters_next_run ON container_clusters (next_run)
    WHERE next_run IS NOT NULL;

CREATE TABLE container_cluster_vms (
    cluster_id TEXT NOT NULL,
    vm_id TEXT NOT NULL,
    name TEXT NOT NULL,
    ordinal BIGINT NOT NULL,
    observed TEXT NOT NULL,
    ip_address TEXT NOT NULL,
    PRIMARY KEY (cluster_id, vm_id)
);

CREATE TABLE container_cluster_details (
    cluster_id TEXT PRIMARY KEY,
    credentials TEXT NOT NULL
);
