-- Status pages merge the rendered resources with the cluster-only ones (observed on a
-- cluster, not rendered by Flotilla: rsync_backed = 0). Those are few, but without an
-- index of their own a page walked every observed row of the instance after the page
-- start to find them. A partial index holds only them, so it costs writes only for
-- them.
CREATE INDEX cluster_resources_cluster_only ON cluster_resources
    (instance_id, app, cluster, kind, api_group, namespace, name) WHERE rsync_backed = 0;
