-- A group or cluster that has had no instance yet holds NULL in its instance column,
-- not '' (an absent value, as the store reads it).
ALTER TABLE deployment_intent_groups ALTER COLUMN current_instance DROP NOT NULL;
UPDATE deployment_intent_groups SET current_instance = NULL WHERE current_instance = '';
ALTER TABLE clusters ALTER COLUMN current_network_instance DROP NOT NULL;
UPDATE clusters SET current_network_instance = NULL WHERE current_network_instance = '';
