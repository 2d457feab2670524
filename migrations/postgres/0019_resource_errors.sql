-- What a cluster said when it refused a resource (rsync Failed): the API server's
-- message, as the agent reported it. Kept until the resource is applied; the group's
-- ResourcesApplied condition names the first few.
CREATE TABLE resource_errors (
    instance_id TEXT NOT NULL,
    app TEXT NOT NULL,
    cluster TEXT NOT NULL,
    kind TEXT NOT NULL,
    api_group TEXT NOT NULL,
    namespace TEXT NOT NULL,
    name TEXT NOT NULL,
    error TEXT NOT NULL,
    PRIMARY KEY (instance_id, app, cluster, kind, api_group, namespace, name)
);
