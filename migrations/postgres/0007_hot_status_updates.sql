-- Status writes update rows in place: rsync_status (rsync), cluster_status and readiness
-- (agent reports), counts (aggregates). PostgreSQL makes such an update a heap-only
-- tuple (HOT) update, with no index entry written, when no indexed column changes and
-- the row's page has room for the new version. At the default fill factor of 100 the
-- pages an instantiate fills have no room, and rsync_status was indexed, so every
-- status change wrote a new entry into each of rsync_resources' four indexes: ~70 µs a
-- row, most of what converging 100,000 resources cost the database.
--
-- Half-full pages leave room for a new version of every row (the old one is pruned on a
-- later visit, without VACUUM), and no index holds rsync_status any more: rsync finds
-- a cluster's work through (instance, cluster, ...) below, status changes by cluster
-- through (cluster). The fill factors apply to pages written from now on.
ALTER TABLE rsync_resources SET (fillfactor = 50);
ALTER TABLE cluster_resources SET (fillfactor = 70);
ALTER TABLE status_counts SET (fillfactor = 50);
ALTER TABLE status_totals SET (fillfactor = 50);
DROP INDEX rsync_resources_cluster;
CREATE INDEX rsync_resources_cluster ON rsync_resources (cluster);

-- rsync reads the work of a cluster instance by instance, in key order: an index in
-- that order lets it read a page without finding and sorting every pending resource
-- of the cluster (the columns added here are not updated, so they cost inserts only).
DROP INDEX rsync_resources_instance_cluster;
CREATE INDEX rsync_resources_instance_cluster ON rsync_resources
    (instance_id, cluster, app, kind, api_group, namespace, name);
