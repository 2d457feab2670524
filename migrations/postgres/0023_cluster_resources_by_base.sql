-- What a cluster's agent reports is the state of a deployment (its deployment-id label
-- names the deployment base), not of one instance: cluster_resources is kept per base.
-- A rollout (update, rollback, migrate within a base) no longer copies the reports of
-- every carried resource to the new instance; every instance of a base reads the
-- base's rows, which are the clusters' reports as they are now.
--
-- Existing rows: each base keeps the rows of its newest instance (the one ingest has
-- been writing), re-keyed by the base; older instances' copies are dropped.
DELETE FROM cluster_resources WHERE instance_id IN (
    SELECT i.id FROM instances i
    WHERE EXISTS (SELECT 1 FROM instances j
                  WHERE j.deployment_base = i.deployment_base AND j.id > i.id));
UPDATE cluster_resources SET instance_id = (
    SELECT i.deployment_base FROM instances i WHERE i.id = cluster_resources.instance_id)
WHERE instance_id IN (SELECT id FROM instances WHERE deployment_base <> id);
DROP INDEX cluster_resources_instance_cluster;
DROP INDEX cluster_resources_cluster_only;
DROP INDEX cluster_resources_instance_name;
ALTER TABLE cluster_resources RENAME COLUMN instance_id TO base_id;
CREATE INDEX cluster_resources_base_cluster ON cluster_resources (base_id, cluster, app);
CREATE INDEX cluster_resources_base_name ON cluster_resources (base_id, name);
CREATE INDEX cluster_resources_cluster_only ON cluster_resources
    (base_id, app, cluster, kind, api_group, namespace, name) WHERE rsync_backed = 0;
