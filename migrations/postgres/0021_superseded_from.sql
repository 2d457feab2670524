-- The rsync status a resource had when a newer instance of its owner took it over
-- without an event (`Superseded`, see `instance_claim`); '' for every other row. A
-- watch stream resumed at a token from before that takeover counts the resource with
-- this status: it is what the uninterrupted stream had counted.
ALTER TABLE rsync_resources ADD COLUMN superseded_from TEXT NOT NULL DEFAULT '';
