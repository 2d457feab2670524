-- The clusters where an instance has Failed or Retrying resources, in name order: what
-- its ResourcesApplied condition names, recomputed whenever a placed cluster's
-- connectivity changes. Without these indexes that read scanned every aggregate of the
-- instance (apps × clusters rows): 250 ms at 100 apps × 1,000 clusters, once per
-- cluster going down, so a fleet losing its agents cost time quadratic in its size.
-- Only troubled rows are in them, so healthy status writes do not maintain them.
CREATE INDEX status_counts_failed ON status_counts (instance_id, cluster)
    WHERE dimension = 'rsync' AND value = 'Failed' AND count > 0;
CREATE INDEX status_counts_retrying ON status_counts (instance_id, cluster)
    WHERE dimension = 'rsync' AND value = 'Retrying' AND count > 0;
