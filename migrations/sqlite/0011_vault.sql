-- The check value of the credentials key: a known text sealed under the key (see
-- server/src/vault.rs). A server started with another key, or with none while this row
-- exists, refuses to start rather than fail to open (or misread) sealed credentials.
CREATE TABLE vault_check (
    id BIGINT PRIMARY KEY,
    sealed TEXT NOT NULL
);
