-- The default namespace has one spelling inside Flotilla, "" (domain::manifest::
-- canonical_namespace): a manifest saying `namespace: default` and one naming no
-- namespace are the same object, which two owners could otherwise both hold, and a
-- Kubernetes agent's "default" is the sim's "". Rows written before are respelled,
-- except where a row of the other spelling already stands for the same object (they
-- stay as they were: nothing is merged or lost).
UPDATE rsync_resources SET namespace = ''
WHERE namespace = 'default' AND NOT EXISTS (
    SELECT 1 FROM rsync_resources t
    WHERE t.instance_id = rsync_resources.instance_id AND t.app = rsync_resources.app
      AND t.cluster = rsync_resources.cluster AND t.kind = rsync_resources.kind
      AND t.api_group = rsync_resources.api_group AND t.namespace = ''
      AND t.name = rsync_resources.name);

UPDATE resource_errors SET namespace = ''
WHERE namespace = 'default' AND NOT EXISTS (
    SELECT 1 FROM resource_errors t
    WHERE t.instance_id = resource_errors.instance_id AND t.app = resource_errors.app
      AND t.cluster = resource_errors.cluster AND t.kind = resource_errors.kind
      AND t.api_group = resource_errors.api_group AND t.namespace = ''
      AND t.name = resource_errors.name);

UPDATE cluster_resources SET namespace = ''
WHERE namespace = 'default' AND NOT EXISTS (
    SELECT 1 FROM cluster_resources t
    WHERE t.base_id = cluster_resources.base_id AND t.app = cluster_resources.app
      AND t.cluster = cluster_resources.cluster AND t.kind = cluster_resources.kind
      AND t.api_group = cluster_resources.api_group AND t.namespace = ''
      AND t.name = cluster_resources.name);
