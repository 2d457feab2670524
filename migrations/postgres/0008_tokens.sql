-- Bearer tokens (DESIGN §15). Only the SHA-256 of a token's secret is stored.
--   id           the token's id (a UUID: v7 for tokens made since, random for agent
--                tokens moved here from the clusters table)
--   hash         SHA-256 (hex) of the secret, unique: the lookup key of authentication
--   role         admin | editor | viewer | agent
--   projects     JSON array of project ids (editor, viewer; [] = every project for viewers)
--   cluster      agent tokens: the cluster they act for; '' otherwise
--   creator      the id of the token that created it; '' for tokens the server made
--   expire_time, revoke_time  microseconds since the Unix epoch, NULL = never
CREATE TABLE tokens (
    id TEXT PRIMARY KEY,
    hash TEXT NOT NULL UNIQUE,
    role TEXT NOT NULL,
    projects TEXT NOT NULL,
    cluster TEXT NOT NULL,
    description TEXT NOT NULL,
    creator TEXT NOT NULL,
    create_time BIGINT NOT NULL,
    expire_time BIGINT,
    revoke_time BIGINT
);
CREATE INDEX tokens_cluster ON tokens (cluster, revoke_time);
CREATE INDEX tokens_role ON tokens (role, revoke_time);

-- Agent tokens move from the clusters table into tokens.
INSERT INTO tokens (id, hash, role, projects, cluster, description, creator, create_time)
SELECT md5(random()::text || clock_timestamp()::text || name)::uuid::text, agent_token_hash, 'agent', '[]', name, 'agent token', '', update_time
FROM clusters WHERE agent_token_hash <> '';
DROP INDEX clusters_agent_token_hash;
ALTER TABLE clusters DROP COLUMN agent_token_hash;
