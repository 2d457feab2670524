-- One object on one cluster (group, kind, namespace, name) is held by one owner at a
-- time: instantiate looks up, by this index, the rows of other instances that render
-- the same object there (another owner's: refused; an older instance of the same
-- owner: taken over, `Superseded`).
CREATE INDEX rsync_resources_object ON rsync_resources
    (cluster, kind, api_group, namespace, name);
