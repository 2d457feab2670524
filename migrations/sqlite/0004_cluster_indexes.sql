-- Status reads filtered to clusters (watches of one cluster, status queries with a
-- cluster filter) search by (instance, cluster) instead of walking every row of the
-- instance through the (instance, app, cluster, ...) primary key.
CREATE INDEX rsync_resources_instance_cluster ON rsync_resources (instance_id, cluster, app);
CREATE INDEX cluster_resources_instance_cluster ON cluster_resources (instance_id, cluster, app);
