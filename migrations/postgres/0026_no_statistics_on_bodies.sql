-- No planner statistics on the wide columns no query filters, joins or sorts on: the
-- JSON bodies, manifests, specs and statuses, and the event log's compressed
-- batches. ANALYZE (refresh_statistics, autovacuum) sampled, detoasted and sorted
-- them for histograms nothing reads: a third of its time on cluster_resources and
-- actions, and it runs while the tables grow (P8: 10,000 actions created at 1,250 a
-- second took PostgreSQL 0.6 s of ANALYZE).
ALTER TABLE cluster_resources ALTER COLUMN body SET STATISTICS 0;
ALTER TABLE rsync_resources ALTER COLUMN manifest SET STATISTICS 0;
ALTER TABLE actions ALTER COLUMN spec SET STATISTICS 0, ALTER COLUMN status SET STATISTICS 0;
ALTER TABLE watch_log ALTER COLUMN events SET STATISTICS 0;
