-- The object index (cluster, kind, api_group, namespace, name, instance_id) starts with
-- the cluster, so it answers every lookup by cluster that rsync_resources_cluster did.
-- Dropped: one index fewer to write for each of an instance's resources, and on SQLite
-- no index left that holds rsync_status, so a status change rewrites the row alone.
DROP INDEX rsync_resources_cluster;
