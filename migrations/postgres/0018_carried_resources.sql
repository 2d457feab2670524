-- Rollouts carry over in bulk what the replaced instance runs unchanged.
--
-- start_cluster_status, start_readiness: for a rendered resource a rollout, rollback or
-- migrate carried over from the instance it replaces (same object, same manifest,
-- Applied there), the cluster status and readiness it was carried with; it starts
-- Applied. '' for every other resource, which starts Pending and Unknown. Watch streams
-- show a new instance as it started from these (its carried resources have no events of
-- their own). instances.carried: how many resources it carried over.
ALTER TABLE rsync_resources ADD COLUMN start_cluster_status TEXT NOT NULL DEFAULT '';
ALTER TABLE rsync_resources ADD COLUMN start_readiness TEXT NOT NULL DEFAULT '';
ALTER TABLE instances ADD COLUMN carried BIGINT NOT NULL DEFAULT 0;

-- The object index ends with the instance: "does instance X render this object"
-- (taking over an older instance's rows) is one probe of it, not a walk over every
-- row of X on that cluster.
DROP INDEX rsync_resources_object;
CREATE INDEX rsync_resources_object ON rsync_resources
    (cluster, kind, api_group, namespace, name, instance_id);
