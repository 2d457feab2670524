-- rsync reads the work of a cluster instance by instance, in key order: an index in
-- that order lets it read a page without finding and sorting every pending resource
-- of the cluster (the columns added here are not updated, so they cost inserts only).
DROP INDEX rsync_resources_instance_cluster;
CREATE INDEX rsync_resources_instance_cluster ON rsync_resources
    (instance_id, cluster, app, kind, api_group, namespace, name);
