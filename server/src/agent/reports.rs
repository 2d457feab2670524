//! What an agent reports of a deployment id: its whole state the first time in a
//! session, then only the resources that changed (a partial ResourceBundleState), when
//! the server accepts partial states. A pod of a hundred changing readiness then costs
//! the agent, the wire and the server one resource, not a hundred. A removal, and an
//! answer to the server's `ReportRequest`, go out in full.

use std::collections::{BTreeMap, HashMap};

use super::backend::Observed;

/// A resource's identity within a deployment: kind, group, namespace, name.
type Key = (String, String, String, String);

fn key(o: &Observed) -> Key {
    (
        o.gvk.kind.clone(),
        o.gvk.group.clone(),
        o.namespace.clone(),
        o.name.clone(),
    )
}

/// The states sent in one session, per deployment id.
pub(super) struct Sent {
    /// Whether the server takes partial states.
    partial: bool,
    last: HashMap<String, BTreeMap<Key, Observed>>,
}

/// A state to send: its resources, and whether they are only the changed ones.
#[derive(Debug, PartialEq)]
pub(super) struct Report {
    pub resources: Vec<Observed>,
    pub partial: bool,
}

impl Sent {
    pub(super) fn new(partial: bool) -> Sent {
        Sent {
            partial,
            last: HashMap::new(),
        }
    }

    /// What to send of `now`, the current state of `deployment_id`: everything, or
    /// (after a full state, with nothing removed since) what changed; None if nothing
    /// did.
    pub(super) fn report(&mut self, deployment_id: &str, now: Vec<Observed>) -> Option<Report> {
        if !self.partial {
            return Some(Report {
                resources: now,
                partial: false,
            });
        }
        let current: BTreeMap<Key, Observed> = now.into_iter().map(|o| (key(&o), o)).collect();
        let report = match self.last.get(deployment_id) {
            Some(before) if before.keys().all(|k| current.contains_key(k)) => {
                let changed: Vec<Observed> = current
                    .iter()
                    .filter(|(k, o)| before.get(*k) != Some(*o))
                    .map(|(_, o)| o.clone())
                    .collect();
                (!changed.is_empty()).then_some(Report {
                    resources: changed,
                    partial: true,
                })
            }
            _ => Some(Report {
                resources: current.values().cloned().collect(),
                partial: false,
            }),
        };
        self.last.insert(deployment_id.to_string(), current);
        report
    }

    /// The next state of `deployment_id` goes out in full.
    pub(super) fn forget(&mut self, deployment_id: &str) {
        self.last.remove(deployment_id);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::domain::manifest::Gvk;

    fn pod(name: &str, ready: bool) -> Observed {
        Observed {
            gvk: Gvk {
                group: String::new(),
                version: "v1".into(),
                kind: "Pod".into(),
            },
            namespace: "default".into(),
            name: name.into(),
            metadata: json!({"name": name}).into(),
            spec: json!({}).into(),
            status: json!({"ready": ready}).into(),
        }
    }

    fn names(report: &Report) -> Vec<&str> {
        report.resources.iter().map(|o| o.name.as_str()).collect()
    }

    #[test]
    fn the_first_state_is_full_then_only_changes_go_out() {
        let mut sent = Sent::new(true);
        let first = sent
            .report("d", vec![pod("a", true), pod("b", true)])
            .unwrap();
        assert!(!first.partial);
        assert_eq!(names(&first), ["a", "b"]);
        assert_eq!(sent.report("d", vec![pod("a", true), pod("b", true)]), None);
        let changed = sent
            .report("d", vec![pod("a", true), pod("b", false)])
            .unwrap();
        assert!(changed.partial);
        assert_eq!(names(&changed), ["b"]);
        // An added resource is a change too.
        let added = sent
            .report("d", vec![pod("a", true), pod("b", false), pod("c", true)])
            .unwrap();
        assert!(added.partial);
        assert_eq!(names(&added), ["c"]);
        // Other deployment ids are their own.
        assert!(!sent.report("e", vec![pod("a", true)]).unwrap().partial);
    }

    #[test]
    fn a_removal_or_a_forgotten_state_goes_out_in_full() {
        let mut sent = Sent::new(true);
        sent.report("d", vec![pod("a", true), pod("b", true)]);
        let removed = sent.report("d", vec![pod("b", true)]).unwrap();
        assert!(!removed.partial);
        assert_eq!(names(&removed), ["b"]);
        let emptied = sent.report("d", vec![]).unwrap();
        assert!(!emptied.partial);
        assert!(emptied.resources.is_empty());
        sent.report("d", vec![pod("a", true)]);
        sent.forget("d");
        let asked = sent.report("d", vec![pod("a", true)]).unwrap();
        assert!(!asked.partial);
        assert_eq!(names(&asked), ["a"]);
    }

    #[test]
    fn a_server_without_partial_states_gets_every_state_in_full() {
        let mut sent = Sent::new(false);
        sent.report("d", vec![pod("a", true), pod("b", true)]);
        let again = sent
            .report("d", vec![pod("a", true), pod("b", true)])
            .unwrap();
        assert!(!again.partial);
        assert_eq!(names(&again), ["a", "b"]);
    }
}
