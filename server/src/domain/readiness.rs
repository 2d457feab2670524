//! What the cluster monitor reports, and how a cluster resource's readiness follows
//! from its status (DESIGN §9, beyond the seed's "TBD").

use serde_json::Value;

/// The kinds the ResourceBundleState monitor reports (seed 000).
pub const MONITORED_KINDS: [&str; 9] = [
    "Pod",
    "Deployment",
    "Service",
    "ConfigMap",
    "Secret",
    "DaemonSet",
    "StatefulSet",
    "Job",
    "CertificateSigningRequest",
];

pub fn is_monitored(kind: &str) -> bool {
    MONITORED_KINDS.contains(&kind)
}

super::named_enum! {
    /// The cluster status of a resource.
    #[derive(PartialOrd, Ord)]
    pub enum ClusterStatus ("cluster status") {
        Unknown,
        NotPresent,
        Present,
    }
}

super::named_enum! {
    /// The readiness of a present resource.
    #[derive(PartialOrd, Ord, Default)]
    pub enum Readiness ("readiness") {
        /// Not present, or no bundle yet.
        #[default]
        None = "",
        Ready,
        NotReady,
    }
}

super::serde_by_name!(ClusterStatus);
super::serde_by_name!(Readiness);

impl Readiness {
    pub fn is_none(&self) -> bool {
        *self == Readiness::None
    }
}

fn int(value: &Value, pointer: &str) -> Option<i64> {
    value.pointer(pointer).and_then(Value::as_i64)
}

fn has_true_condition(status: &Value, type_: &str) -> bool {
    status
        .get("conditions")
        .and_then(Value::as_array)
        .is_some_and(|conditions| {
            conditions.iter().any(|c| {
                c.get("type").and_then(Value::as_str) == Some(type_)
                    && c.get("status").and_then(Value::as_str) == Some("True")
            })
        })
}

fn has_condition(status: &Value, type_: &str) -> bool {
    status
        .get("conditions")
        .and_then(Value::as_array)
        .is_some_and(|conditions| {
            conditions
                .iter()
                .any(|c| c.get("type").and_then(Value::as_str) == Some(type_))
        })
}

/// The readiness of a present resource of `kind` with this spec and status.
pub fn readiness(kind: &str, spec: &Value, status: &Value) -> Readiness {
    let ready = match kind {
        "Deployment" => {
            // Available replicas, and the Available condition when the controller
            // reports one (a real cluster's does; the sim's does not).
            let wanted = int(spec, "/replicas").unwrap_or(1);
            int(status, "/availableReplicas").unwrap_or(0) >= wanted
                && (!has_condition(status, "Available") || has_true_condition(status, "Available"))
        }
        "StatefulSet" => {
            let wanted = int(spec, "/replicas").unwrap_or(1);
            int(status, "/readyReplicas").unwrap_or(0) >= wanted
        }
        "DaemonSet" => {
            let wanted = int(status, "/desiredNumberScheduled").unwrap_or(0);
            int(status, "/numberReady").unwrap_or(0) >= wanted
        }
        "Pod" => {
            has_true_condition(status, "Ready")
                || status.get("phase").and_then(Value::as_str) == Some("Succeeded")
        }
        "Job" => {
            let wanted = int(spec, "/completions").unwrap_or(1);
            has_true_condition(status, "Complete")
                || int(status, "/succeeded").unwrap_or(0) >= wanted
        }
        "CertificateSigningRequest" => has_true_condition(status, "Approved"),
        // Services, ConfigMaps, Secrets and unknown kinds are ready once they exist.
        _ => true,
    };
    if ready {
        Readiness::Ready
    } else {
        Readiness::NotReady
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn readiness_by_kind() {
        use Readiness::{NotReady, Ready};
        let available = |status| json!({"availableReplicas": 1, "conditions": [{"type": "Available", "status": status}]});
        let cases = [
            (
                "Deployment",
                json!({"replicas": 2}),
                json!({"availableReplicas": 1}),
                NotReady,
            ),
            (
                "Deployment",
                json!({"replicas": 2}),
                json!({"availableReplicas": 2}),
                Ready,
            ),
            ("Deployment", json!({}), json!({}), NotReady),
            // A real controller's Available condition has the last word.
            (
                "Deployment",
                json!({"replicas": 1}),
                available("False"),
                NotReady,
            ),
            (
                "Deployment",
                json!({"replicas": 1}),
                available("True"),
                Ready,
            ),
            (
                "StatefulSet",
                json!({"replicas": 1}),
                json!({"readyReplicas": 1}),
                Ready,
            ),
            (
                "DaemonSet",
                json!({}),
                json!({"desiredNumberScheduled": 3, "numberReady": 2}),
                NotReady,
            ),
            (
                "Pod",
                json!({}),
                json!({"conditions": [{"type": "Ready", "status": "True"}]}),
                Ready,
            ),
            ("Pod", json!({}), json!({"phase": "Pending"}), NotReady),
            ("Pod", json!({}), json!({"phase": "Succeeded"}), Ready),
            ("Job", json!({}), json!({"succeeded": 1}), Ready),
            (
                "Job",
                json!({"completions": 3}),
                json!({"succeeded": 1}),
                NotReady,
            ),
            ("ConfigMap", json!(null), json!(null), Ready),
        ];
        for (kind, spec, status, expected) in cases {
            assert_eq!(
                readiness(kind, &spec, &status),
                expected,
                "{kind} {spec} {status}"
            );
        }
    }

    #[test]
    fn statuses_round_trip() {
        for s in [
            ClusterStatus::Unknown,
            ClusterStatus::NotPresent,
            ClusterStatus::Present,
        ] {
            assert_eq!(ClusterStatus::parse(s.as_str()), Some(s));
        }
        for r in [Readiness::None, Readiness::Ready, Readiness::NotReady] {
            assert_eq!(Readiness::parse(r.as_str()), Some(r));
        }
    }
}

super::named_enum! {
    /// Whether a cluster's agent session is up, as the server last saw it.
    #[derive(serde::Serialize, serde::Deserialize)]
    pub enum Connectivity ("connectivity") {
        /// No agent session yet.
        Unknown,
        Available,
        /// The session is down; rsync retries.
        Retrying,
    }
}
