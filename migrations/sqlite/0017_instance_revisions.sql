-- Changing a running deployment (update, rollback, migrate).
--
-- deployment_base: the instance id the deployment-id label of the instance's resources
-- carries (`flotilla/deployment-id: <base>-<app>`). An instantiate starts a new base (its
-- own id); an update, rollback or migrate renders a new instance under the base of the
-- instance it replaces, so what it does not change is the very object the cluster
-- already runs and is not sent again. Bundle states name the base; ingest gives them to
-- the newest instance of that base.
--
-- content_digest: a JSON object, resource name -> sha256 of its spec, of everything the
-- instance was rendered from (the group, its intents, apps and profiles), so a group
-- shows which of them changed since its running instance.
ALTER TABLE instances ADD COLUMN deployment_base TEXT NOT NULL DEFAULT '';
ALTER TABLE instances ADD COLUMN content_digest TEXT NOT NULL DEFAULT '{}';
UPDATE instances SET deployment_base = id;
CREATE INDEX instances_deployment_base ON instances (deployment_base, id);
