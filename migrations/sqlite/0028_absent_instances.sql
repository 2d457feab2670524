-- A group or cluster that has had no instance yet holds NULL in its instance column,
-- not '' (an absent value, as the store reads it). SQLite cannot drop a NOT NULL
-- constraint in place: the column is added again without it, filled, and renamed.
ALTER TABLE deployment_intent_groups ADD COLUMN current_instance_id TEXT;
UPDATE deployment_intent_groups SET current_instance_id = NULLIF(current_instance, '');
ALTER TABLE deployment_intent_groups DROP COLUMN current_instance;
ALTER TABLE deployment_intent_groups RENAME COLUMN current_instance_id TO current_instance;

ALTER TABLE clusters ADD COLUMN current_network_instance_id TEXT;
UPDATE clusters SET current_network_instance_id = NULLIF(current_network_instance, '');
ALTER TABLE clusters DROP COLUMN current_network_instance;
ALTER TABLE clusters RENAME COLUMN current_network_instance_id TO current_network_instance;
