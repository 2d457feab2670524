-- What container cluster workflows need to survive a crash, and the sim provider's
-- infrastructure objects (seed 004).
--
-- A workflow names what it provisions deterministically (`{cluster id}-{ordinal}` for
-- VMs, `{cluster id}-net` for the network) and, before creating one, asks the IaaS
-- whether it exists already: a server killed between the IaaS call and the commit of
-- its result adopts what it made instead of leaking it. These indexes make that lookup
-- cheap.
CREATE INDEX sim_vms_name ON sim_vms (name);
CREATE INDEX sim_networks_name ON sim_networks (zone_id, name);

-- Infrastructure objects of the sim provider (`simInfrastructures/{id}`): book-keeping
-- of Flotilla, not of the IaaS.
--   spec    JSON: zone, service offering, size, network
--   owner   `containerClusters/{id}` of the cluster that owns it, '' while unowned
--   status  JSON: ready, endpoint, phase, failure reason/message, conditions
CREATE TABLE sim_infrastructures (
    id TEXT PRIMARY KEY,
    spec TEXT NOT NULL,
    owner TEXT NOT NULL,
    status TEXT NOT NULL,
    generation BIGINT NOT NULL,
    create_time BIGINT NOT NULL,
    update_time BIGINT NOT NULL
);
CREATE INDEX sim_infrastructures_owner ON sim_infrastructures (owner);
