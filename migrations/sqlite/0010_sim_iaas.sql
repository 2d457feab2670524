-- The sim IaaS: the embedded default infrastructure provider of container clusters.
-- It stands for an external system (CloudStack, OpenStack), so it keeps its own
-- tables: nothing of the book-keeping joins them or refers to them by foreign key.
--
--   sim_zones.capacity   how many more VMs the zone accepts (a VM released gives one back)
--   sim_hosts.reachable  1, or 0 for a host the management server cannot reach: VMs
--                        on it can be neither started, stopped nor deleted
--   sim_vms.state        Running or Stopped (a deleted VM is gone)
--   sim_faults           the next `remaining` calls of `operation` fail
CREATE TABLE sim_zones (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    capacity BIGINT NOT NULL
);
CREATE TABLE sim_offerings (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    cpus BIGINT NOT NULL,
    memory_mib BIGINT NOT NULL
);
CREATE TABLE sim_hosts (
    id TEXT PRIMARY KEY,
    zone_id TEXT NOT NULL,
    reachable BIGINT NOT NULL
);
CREATE TABLE sim_networks (
    id TEXT PRIMARY KEY,
    zone_id TEXT NOT NULL,
    name TEXT NOT NULL,
    source_nat BIGINT NOT NULL
);
CREATE TABLE sim_vms (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    zone_id TEXT NOT NULL,
    offering_id TEXT NOT NULL,
    network_id TEXT NOT NULL,
    host_id TEXT NOT NULL,
    state TEXT NOT NULL,
    ip_address TEXT NOT NULL,
    create_time BIGINT NOT NULL
);
CREATE INDEX sim_vms_host ON sim_vms (host_id);
CREATE TABLE sim_faults (
    operation TEXT PRIMARY KEY,
    remaining BIGINT NOT NULL
);
