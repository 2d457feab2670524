-- A rollout (update, rollback) no longer writes `Superseded` into every row of the
-- instance it replaces (100,000 row writes for a rollout of 100,000 resources). The
-- replaced instance is marked `taken_over`; its rows stored `Applied` and not `removed`
-- are shown `Superseded` (the newer instance renders the same objects and took them
-- over), and keep the stored status they had at the takeover, which is what a watch
-- stream resumed from before the takeover counts. Its aggregates move in bulk.
--
-- instances.taken_over: 1 for an instance a rollout or rollback replaced this way.
-- rsync_resources.removed: 1 for an Applied row of such an instance that the newer
-- instance does not render: rsync deletes it, and it shows its own status.
-- Instances superseded before this migration had their rows written; they keep 0.
ALTER TABLE instances ADD COLUMN taken_over BIGINT NOT NULL DEFAULT 0;
ALTER TABLE rsync_resources ADD COLUMN removed BIGINT NOT NULL DEFAULT 0;
