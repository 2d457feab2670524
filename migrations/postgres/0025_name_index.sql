-- Lookups by resource name (status queries filtered by name) go through (name,
-- instance_id) instead of (instance_id, name). The old order began with the instance:
-- right after an instance is written, before the table's statistics know its id,
-- PostgreSQL took it for a handful of rows and read rsync's work for one cluster
-- ("instance X, cluster C, Pending") through that index, walking every row of the
-- instance to keep one cluster's: 80-200 ms a cluster instead of under 1 ms, for
-- each of the hundred clusters a rollout wakes at once. With the name first the index
-- is of no use to a query without a name, so such reads take (instance_id, cluster,
-- ...) whatever the statistics say.
DROP INDEX rsync_resources_instance_name;
CREATE INDEX rsync_resources_name_instance ON rsync_resources (name, instance_id);
