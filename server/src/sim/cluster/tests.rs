//! The sim cluster's controllers, scheduling and reports.
use super::*;
use crate::domain::readiness::{Readiness, readiness};

fn deployment(name: &str, replicas: i64, id: &str) -> Value {
    json!({
        "apiVersion": "apps/v1", "kind": "Deployment",
        "metadata": {"name": name, "labels": {DEPLOYMENT_ID_LABEL: id}},
        "spec": {"replicas": replicas, "template": {"metadata": {"labels": {"app": name}}}}
    })
}

/// The deployment ids the cluster reported since the last call, each once.
/// Deletes the `web` Deployment (as the instance `owner`, or as anyone).
fn delete_web(sim: &SimCluster, owner: Option<&str>) {
    sim.delete(
        &Gvk::from_api_version("apps/v1", "Deployment"),
        "",
        "web",
        owner,
    )
    .unwrap();
}

fn reported(changes: &mut mpsc::UnboundedReceiver<String>) -> BTreeSet<String> {
    let mut ids = BTreeSet::new();
    while let Ok(id) = changes.try_recv() {
        ids.insert(id);
    }
    ids
}

fn find<'a>(bundle: &'a [Observed], kind: &str, name: &str) -> Option<&'a Observed> {
    bundle.iter().find(|o| o.gvk.kind == kind && o.name == name)
}

/// An apply says whether it wrote the object: a repeat of what the object holds, or an
/// older generation, writes nothing (a replica that takes over a cluster sends again what
/// its predecessor may have applied; the agents count the writes).
#[test]
fn an_apply_says_whether_it_wrote() {
    let (sim, _changes) = SimCluster::new(Duration::ZERO);
    let config = |value: &str| {
        json!({"apiVersion": "v1", "kind": "ConfigMap",
               "metadata": {"name": "cfg", "labels": {DEPLOYMENT_ID_LABEL: "i-a"}},
               "data": {"k": value}})
    };
    assert_eq!(sim.apply(&config("1"), 1), Ok(Applied::Written));
    assert_eq!(sim.apply(&config("1"), 1), Ok(Applied::Unchanged));
    assert_eq!(sim.apply(&config("1"), 2), Ok(Applied::Unchanged));
    assert_eq!(sim.apply(&config("2"), 3), Ok(Applied::Written));
    assert_eq!(sim.apply(&config("3"), 2), Ok(Applied::Unchanged));
    let cfg = find(&sim.bundle("i-a"), "ConfigMap", "cfg").cloned();
    assert_eq!(cfg.map(|o| o.spec["data"]["k"].clone()), Some(json!("2")));
}

#[tokio::test]
async fn deployments_get_pods_that_become_ready() {
    let (sim, mut changes) = SimCluster::new(Duration::from_millis(50));
    sim.apply(&deployment("web", 2, "i-a"), 1).unwrap();
    let bundle = sim.bundle("i-a");
    assert_eq!(bundle.len(), 3, "deployment and two pods: {bundle:?}");
    let web = find(&bundle, "Deployment", "web").unwrap();
    assert_eq!(
        readiness("Deployment", &web.spec, &web.status),
        Readiness::NotReady
    );
    assert_eq!(changes.recv().await.unwrap(), "i-a");
    tokio::time::sleep(Duration::from_millis(150)).await;
    let bundle = sim.bundle("i-a");
    let web = find(&bundle, "Deployment", "web").unwrap();
    assert_eq!(
        readiness("Deployment", &web.spec, &web.status),
        Readiness::Ready
    );
    let pod = find(&bundle, "Pod", "web-0").unwrap();
    assert_eq!(readiness("Pod", &pod.spec, &pod.status), Readiness::Ready);
    assert_eq!(pod.metadata["labels"]["app"], "web");
}

#[tokio::test]
async fn deleted_controller_pods_come_back_under_the_same_name() {
    let (sim, _changes) = SimCluster::new(Duration::from_millis(10));
    sim.apply(&deployment("web", 1, "i-a"), 1).unwrap();
    assert!(sim.delete_pod("", "web-0"));
    assert!(find(&sim.bundle("i-a"), "Pod", "web-0").is_none());
    tokio::time::sleep(RECREATE_DELAY + Duration::from_millis(100)).await;
    assert!(find(&sim.bundle("i-a"), "Pod", "web-0").is_some());
    assert!(!sim.delete_pod("", "nope"));
}

#[tokio::test]
async fn jobs_complete_and_plain_kinds_exist_at_once() {
    let (sim, _changes) = SimCluster::new(Duration::from_millis(10));
    sim.apply(&json!({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "once", "labels": {DEPLOYMENT_ID_LABEL: "i-j"}}, "spec": {}}), 1)
        .unwrap();
    sim.apply(&json!({"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cfg", "labels": {DEPLOYMENT_ID_LABEL: "i-j"}}, "data": {"k": "v"}}), 1)
        .unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    let bundle = sim.bundle("i-j");
    let job = find(&bundle, "Job", "once").unwrap();
    assert_eq!(readiness("Job", &job.spec, &job.status), Readiness::Ready);
    assert!(find(&bundle, "ConfigMap", "cfg").is_some());
}

#[tokio::test]
async fn a_reapplied_controller_rolls_its_pods_to_the_new_deployment() {
    let (sim, _changes) = SimCluster::new(Duration::from_millis(10));
    sim.apply(&deployment("web", 2, "i-old"), 1).unwrap();
    sim.apply(&deployment("web", 2, "i-new"), 2).unwrap();
    assert_eq!(sim.bundle("i-new").len(), 3, "deployment and its two pods");
    assert!(sim.bundle("i-old").is_empty(), "{:?}", sim.bundle("i-old"));
}

/// A pod its controller scales away leaves every index, and its deployment hears of
/// it: once another deployment runs a pod of that name, the first does not report it
/// (it did, Present, after a verb storm: the server then believed a pod that was not
/// its own).
#[tokio::test]
async fn a_scaled_away_pod_is_reported_only_by_the_deployment_that_runs_it() {
    let (sim, mut changes) = SimCluster::new(Duration::from_millis(10));
    sim.apply(&deployment("web", 2, "i-a"), 1).unwrap();
    sim.apply(&deployment("web", 1, "i-a"), 2).unwrap();
    while changes.try_recv().is_ok() {}
    sim.apply(&deployment("web", 2, "i-b"), 3).unwrap();
    let old = sim.bundle("i-a");
    assert!(old.is_empty(), "i-a holds nothing now: {old:?}");
    assert_eq!(sim.bundle("i-b").len(), 3, "deployment and its two pods");
    assert_eq!(
        reported(&mut changes),
        ["i-a", "i-b"].map(String::from).into()
    );
    // Deleting the controller reports the deployment its pods carried.
    while changes.try_recv().is_ok() {}
    delete_web(&sim, None);
    assert_eq!(changes.try_recv().ok().as_deref(), Some("i-b"));
    assert!(sim.bundle("i-b").is_empty());
}

/// A rollout that only scales keeps the running pods; one that changes the pod
/// template replaces them, as Kubernetes does.
#[tokio::test]
async fn scaling_keeps_pods_and_a_new_template_rolls_them() {
    let (sim, _changes) = SimCluster::new(Duration::from_millis(10));
    let uids = |sim: &SimCluster| -> BTreeMap<String, String> {
        sim.bundle("i-a")
            .into_iter()
            .filter(|o| o.gvk.kind == "Pod")
            .map(|o| (o.name, o.metadata["uid"].as_str().unwrap().to_string()))
            .collect()
    };
    sim.apply(&deployment("web", 2, "i-a"), 1).unwrap();
    let before = uids(&sim);
    assert_eq!(before.len(), 2);
    sim.apply(&deployment("web", 3, "i-a"), 2).unwrap();
    let scaled = uids(&sim);
    assert_eq!(scaled.len(), 3);
    for (pod, uid) in &before {
        assert_eq!(scaled.get(pod), Some(uid), "{pod} kept through a scale-up");
    }
    let mut changed = deployment("web", 3, "i-a");
    changed["spec"]["template"]["spec"] = json!({"containers": [{"name": "c", "image": "v2"}]});
    sim.apply(&changed, 3).unwrap();
    let rolled = uids(&sim);
    assert_eq!(rolled.len(), 3);
    for (pod, uid) in &scaled {
        assert_ne!(
            rolled.get(pod),
            Some(uid),
            "{pod} replaced by a new template"
        );
    }
}

/// Re-applying what the cluster holds (a reconnecting agent gets its whole desired
/// state again) changes nothing: no change to report, ready pods stay ready.
#[tokio::test]
async fn an_identical_apply_is_a_no_op() {
    let (sim, mut changes) = SimCluster::new(Duration::from_millis(10));
    sim.apply(&deployment("web", 1, "i-a"), 1).unwrap();
    assert_eq!(changes.recv().await.unwrap(), "i-a");
    tokio::time::sleep(Duration::from_millis(80)).await;
    while changes.try_recv().is_ok() {}
    let before = sim.bundle("i-a");
    sim.apply(&deployment("web", 1, "i-a"), 1).unwrap();
    sim.apply(&deployment("web", 1, "i-a"), 2).unwrap();
    tokio::time::sleep(Duration::from_millis(80)).await;
    assert!(changes.try_recv().is_err(), "no change reported");
    assert_eq!(sim.bundle("i-a"), before, "the pod kept its readiness");
    let pod = find(&before, "Pod", "web-0").unwrap();
    assert_eq!(readiness("Pod", &pod.spec, &pod.status), Readiness::Ready);
    // The generation moved: an apply older than the last one is still ignored.
    sim.apply(&deployment("web", 3, "i-a"), 1).unwrap();
    assert_eq!(sim.bundle("i-a").len(), 2, "generation 1 < 2: ignored");
    // A changed apply is one.
    sim.apply(&deployment("web", 2, "i-a"), 3).unwrap();
    assert_eq!(changes.recv().await.unwrap(), "i-a");
    assert_eq!(sim.bundle("i-a").len(), 3);
}

#[tokio::test]
async fn stale_generations_are_ignored() {
    let (sim, _changes) = SimCluster::new(Duration::from_millis(10));
    sim.apply(&deployment("web", 3, "i-new"), 20).unwrap();
    sim.apply(&deployment("web", 1, "i-old"), 10).unwrap();
    assert_eq!(sim.bundle("i-new").len(), 4, "the newer apply stays");
    assert!(sim.bundle("i-old").is_empty());
}

#[tokio::test]
async fn fault_rules_fail_matching_applies_and_delete_removes_pods() {
    let (sim, _changes) = SimCluster::new(Duration::from_millis(10));
    sim.fail_applies("Deployment", "*");
    assert!(sim.apply(&deployment("web", 1, "i-f"), 1).is_err());
    assert!(sim.bundle("i-f").is_empty());
    assert_eq!(
        sim.deployment_ids(),
        ["i-f"],
        "failed applies still name their deployment"
    );
    sim.fail_applies("", "");
    sim.apply(&deployment("web", 1, "i-f"), 1).unwrap();
    assert_eq!(sim.object_count(), 2);
    delete_web(&sim, Some("i-f"));
    assert_eq!(sim.object_count(), 0);
    delete_web(&sim, None);
}

/// An object a newer deployment relabels leaves the old one with its pods: both
/// deployments are reported, the old one empty (as a watch on the old label would
/// see it), so no pod of the old one is believed present.
#[tokio::test]
async fn a_relabelled_object_reports_the_deployment_it_leaves() {
    let (sim, mut changes) = SimCluster::new(Duration::from_millis(10));
    sim.apply(&deployment("web", 2, "i-old"), 1).unwrap();
    assert_eq!(changes.recv().await.unwrap(), "i-old");
    while changes.try_recv().is_ok() {}
    sim.apply(&deployment("web", 2, "i-new"), 2).unwrap();
    assert_eq!(
        reported(&mut changes),
        ["i-new", "i-old"].map(String::from).into()
    );
    assert!(sim.bundle("i-old").is_empty(), "{:?}", sim.bundle("i-old"));
    assert_eq!(sim.bundle("i-new").len(), 3);
}
