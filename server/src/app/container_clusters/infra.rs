//! The sim provider's infrastructure objects (seed 004): validated on their own at
//! create (zone, offering, size and network exist and fit), provisioned only once a
//! container cluster owns them, deleted with their cluster or (unowned) by the user.

use super::{ContainerClusters, MAX_SIZE};
use crate::app::{RequestKey, check_etag, idempotent};
use crate::domain::cluster_workflow::{Phase, infrastructure_ready};
use crate::error::{Conflict, Error, FieldViolation, Precondition, Result, precondition};
use crate::store::sim_infrastructure::{
    InfraRecord, InfraSpec, InfraStatus, infra_delete, infra_get, infra_insert, infra_list,
    infra_update,
};
use crate::store::{Tx, now_micros};

/// A validated CreateSimInfrastructure request.
#[derive(Debug, Clone)]
pub struct NewInfra {
    /// "" = a UUID.
    pub id: String,
    pub spec: InfraSpec,
}

const KIND: &str = "flotilla.v1.SimInfrastructure";

impl ContainerClusters {
    /// Checks a spec against the IaaS: zone, offering and network exist (the network
    /// in the zone), the size is within 1..=MAX_SIZE and fits the zone's capacity.
    /// Field names are prefixed with `prefix` ("" or "sim_infrastructure.spec.").
    pub(super) async fn check_spec(&self, spec: &InfraSpec, prefix: &str) -> Result<()> {
        let mut violations = Vec::new();
        let field = |name: &str| format!("{prefix}{name}");
        let zones = self.iaas.zones().await?;
        let offerings = self.iaas.offerings().await?;
        let known = [
            (
                "zone_id",
                "zone",
                &spec.zone_id,
                "ListZones",
                zones.iter().map(|z| z.id.as_str()).collect::<Vec<_>>(),
            ),
            (
                "service_offering_id",
                "service offering",
                &spec.service_offering_id,
                "ListServiceOfferings",
                offerings.iter().map(|o| o.id.as_str()).collect(),
            ),
        ];
        for (name, what, wanted, rpc, ids) in known {
            if !ids.contains(&wanted.as_str()) {
                violations.push(FieldViolation::new(
                    field(name),
                    format!(
                        "{what} {wanted:?} does not exist ({rpc}: {})",
                        ids.join(", ")
                    ),
                ));
            }
        }
        if !(1..=MAX_SIZE).contains(&spec.size) {
            violations.push(FieldViolation::new(
                field("size"),
                format!("must be between 1 and {MAX_SIZE}"),
            ));
        }
        if !spec.network_id.is_empty() {
            match self.iaas.network(&spec.network_id).await? {
                Some(network) if network.zone_id == spec.zone_id => {}
                Some(network) => violations.push(FieldViolation::new(
                    field("network_id"),
                    format!(
                        "network {:?} is in zone {:?}, not {:?}",
                        spec.network_id, network.zone_id, spec.zone_id
                    ),
                )),
                None => violations.push(FieldViolation::new(
                    field("network_id"),
                    format!("network {:?} does not exist", spec.network_id),
                )),
            }
        }
        if !violations.is_empty() {
            return Err(Error::InvalidArgument { violations });
        }
        self.check_capacity(spec, &field("size")).await
    }

    /// RESOURCE_EXHAUSTED if the zone cannot take `spec.size` more VMs.
    pub(super) async fn check_capacity(&self, spec: &InfraSpec, field: &str) -> Result<()> {
        let zones = self.iaas.zones().await?;
        let capacity = zones
            .iter()
            .find(|z| z.id == spec.zone_id)
            .map_or(0, |z| z.capacity);
        if spec.size > capacity {
            return Err(Error::exhausted(
                "ZONE_CAPACITY",
                format!(
                    "zone {} accepts {capacity} more VMs; {} were asked for",
                    spec.zone_id, spec.size
                ),
                field,
                format!("exceeds the zone's remaining capacity of {capacity} VMs"),
            ));
        }
        Ok(())
    }

    /// The object `id`, which no cluster may own yet.
    pub(super) async fn unowned_infra(&self, id: &str) -> Result<InfraRecord> {
        let infra = self
            .get_infra(id)
            .await
            .map_err(|error| error.found_through("container_cluster.infrastructure_ref"))?;
        require_unowned(&infra, " already")?;
        Ok(infra)
    }

    /// Makes `owner` the owner of the unowned object `id` (compare-and-swap: of two
    /// clusters taking one object, one wins).
    pub(super) async fn take_infra(&self, tx: &mut Tx, id: &str, owner: &str) -> Result<()> {
        let mut infra = infra_get(tx, id)
            .await?
            .ok_or_else(|| infra_not_found(id))?;
        if !infra.owner.is_empty() {
            return Err(Error::Aborted {
                reason: Conflict::InfrastructureOwned,
                message: format!("{} was taken by {} meanwhile", infra.name(), infra.owner),
            });
        }
        let expected = infra.generation;
        infra.owner = owner.to_string();
        infra.generation += 1;
        infra.update_time = now_micros();
        if !infra_update(tx, &infra, expected).await? {
            return Err(Error::changed_meanwhile(infra.name()));
        }
        Ok(())
    }

    /// Records a new object (owned by `owner`, or "" for none).
    pub(super) async fn insert_infra(
        &self,
        tx: &mut Tx,
        id: &str,
        spec: &InfraSpec,
        owner: &str,
    ) -> Result<InfraRecord> {
        let now = now_micros();
        let mut status = InfraStatus::default();
        let ready = infrastructure_ready(Phase::Pending, None);
        crate::domain::conditions::set(&mut status.conditions, ready, now);
        let record = InfraRecord {
            id: id.to_string(),
            spec: spec.clone(),
            owner: owner.to_string(),
            status,
            generation: 1,
            create_time: now,
            update_time: now,
        };
        if !infra_insert(tx, &record).await? {
            return Err(Error::AlreadyExists {
                kind: KIND,
                name: record.name(),
            });
        }
        Ok(record)
    }

    /// CreateSimInfrastructure: validates the spec, records it unowned (Pending).
    pub async fn create_infra(
        &self,
        new: NewInfra,
        key: Option<&RequestKey>,
    ) -> Result<InfraRecord> {
        self.check_spec(&new.spec, "sim_infrastructure.spec.")
            .await?;
        let id = if new.id.is_empty() {
            uuid::Uuid::now_v7().to_string()
        } else {
            new.id.clone()
        };
        let created: String = idempotent(&self.store, key, async |tx| {
            self.insert_infra(tx, &id, &new.spec, "").await?;
            Ok(id.clone())
        })
        .await?;
        self.get_infra(&created).await
    }

    pub async fn get_infra(&self, id: &str) -> Result<InfraRecord> {
        let mut conn = self.store.read().await?;
        infra_get(&mut conn, id)
            .await?
            .ok_or_else(|| infra_not_found(id))
    }

    pub async fn list_infra(
        &self,
        after: Option<&str>,
        limit: usize,
    ) -> Result<(Vec<InfraRecord>, bool)> {
        let mut conn = self.store.read().await?;
        let page = infra_list(&mut conn, after, limit + 1).await?;
        Ok(crate::app::page_of(page, limit))
    }

    /// DeleteSimInfrastructure: only an object no cluster owns (a cluster's object
    /// goes with the cluster).
    pub async fn delete_infra(&self, id: &str, etag: Option<i64>) -> Result<()> {
        let infra = self.get_infra(id).await?;
        check_etag(&infra.name(), etag, infra.generation)?;
        require_unowned(&infra, ": delete the container cluster instead")?;
        let mut tx = self.store.begin().await?;
        if !infra_delete(&mut tx, id, infra.generation, "").await? {
            return Err(Error::changed_meanwhile(infra.name()));
        }
        tx.commit().await
    }
}

fn infra_not_found(id: &str) -> Error {
    Error::NotFound {
        kind: KIND,
        name: format!("simInfrastructures/{id}"),
        field: Some("name".into()),
    }
}

/// FAILED_PRECONDITION `INFRASTRUCTURE_OWNED` if a cluster owns `infra`; `hint` ends
/// the message.
fn require_unowned(infra: &InfraRecord, hint: &str) -> Result<()> {
    if infra.owner.is_empty() {
        return Ok(());
    }
    let name = infra.name();
    Err(precondition!(
        Precondition::InfrastructureOwned,
        name.clone(),
        "{name} is owned by {}{hint}",
        infra.owner
    ))
}
