//! KubeVirt through the kube backend: a VM pod's reboot (the `restart` subresource)
//! and snapshot (a VirtualMachineSnapshot followed to completion), and a refused node
//! reboot. KubeVirt's own API server (virt-api, which serves `restart` as an aggregated
//! subresource) and its snapshot controller cannot run here, so these run against the
//! emulator (`flotilla_tests::kubeapi`), which models exactly that much of KubeVirt.

use super::*;
use flotilla_tests::kubeapi::{KubeApi, Options};
use flotilla_tests::wait_action;
use tokio_util::sync::CancellationToken;

/// A KubeVirt VM (its virt-launcher pod is the VM pod actions target).
const VM: &str = "apiVersion: kubevirt.io/v1
kind: VirtualMachine
metadata:
  name: guest
spec:
  running: true
  template:
    metadata:
      labels: {app: guest}
    spec:
      domain:
        resources:
          requests: {memory: 2Gi}
";

/// An emulated cluster `k1` with KubeVirt, served by a `flotilla-agent --backend kube`.
struct Kube {
    api: KubeApi,
    agent: TestAgent,
    _stop: tokio_util::sync::DropGuard,
}

async fn kube_cluster(
    server: &TestServer,
    client: &mut flotilla_client::Client,
    options: Options,
) -> Kube {
    let stop = CancellationToken::new();
    let guard = stop.clone().drop_guard();
    let api = KubeApi::start(options, stop).await;
    let kubeconfig = server.data_dir.path().join("kubeconfig");
    std::fs::write(&kubeconfig, api.kubeconfig()).unwrap();
    let tokens = clusters(client, &["k1"]).await;
    let cluster = names::cluster("cp", "k1");
    let agent = TestAgent::start_with(
        server,
        &cluster,
        &tokens["k1"],
        &[
            "--backend",
            "kube",
            "--kubeconfig",
            kubeconfig.to_str().unwrap(),
            "--context",
            "emulator",
        ],
    );
    wait_connectivity(client, &cluster, Connectivity::Available).await;
    Kube {
        api,
        agent,
        _stop: guard,
    }
}

fn action_state(action: &Action) -> ActionState {
    action
        .status
        .as_ref()
        .map(|s| s.state())
        .unwrap_or_default()
}

/// The VM's virt-launcher pod as the status reports it: (name, ready).
async fn vm_pod(client: &mut flotilla_client::Client, dig: &str) -> Option<(String, bool)> {
    detail(client, dig)
        .await
        .into_iter()
        .find(|r| {
            r.gvk.as_ref().is_some_and(|g| g.kind == "Pod")
                && r.name.starts_with("virt-launcher-guest-")
                && present(r)
        })
        .map(|r| (r.name.clone(), r.readiness() == Readiness::Ready))
}

pub(super) async fn kube_agent_runs_vm_actions_through_kubevirt(server: &TestServer) {
    let mut client = server.client().await;
    let options = Options {
        kubevirt: true,
        ..Options::default()
    };
    let Kube { api, agent, _stop } = kube_cluster(server, &mut client, options).await;
    let dig = group(&mut client, &[("guest", VM)]).await;
    instantiate(&mut client, &dig).await;
    let (pod, _) = eventually(WAIT, "the VM's pod to run Ready", || {
        let mut client = client.clone();
        let dig = dig.clone();
        async move { vm_pod(&mut client, &dig).await.filter(|(_, ready)| *ready) }
    })
    .await;
    let cluster = names::cluster("cp", "k1");
    let create = |action_name: &str, pod: &str, params| CreatePodActionRequest {
        cluster: cluster.clone(),
        namespace: String::new(),
        pod: pod.to_string(),
        action_name: action_name.into(),
        params: Some(params),
        request_id: String::new(),
    };

    // Reboot: KubeVirt's restart; a new virt-launcher pod runs Ready.
    let reboot = client
        .actions
        .create_pod_action(create(
            "Reboot",
            &pod,
            create_pod_action_request::Params::RebootParams(RebootParams {
                delay_in_seconds: 0,
            }),
        ))
        .await
        .unwrap()
        .into_inner();
    let done = wait_action(&client, &reboot.name).await;
    assert_eq!(action_state(&done), ActionState::Succeeded, "{done:?}");
    let status = done.status.as_ref().unwrap();
    assert!(status.reboot_status.as_ref().unwrap().reboot_successful);
    assert_eq!(api.vm_restarts(), 1);
    let (rebooted, _) = eventually(WAIT, "a new VM pod to run Ready", || {
        let mut client = client.clone();
        let dig = dig.clone();
        let pod = pod.clone();
        async move {
            vm_pod(&mut client, &dig)
                .await
                .filter(|(name, ready)| *ready && *name != pod)
        }
    })
    .await;

    // Snapshot: a VirtualMachineSnapshot followed to Succeeded; its size is the volume
    // snapshot's restoreSize (the VM's 2Gi).
    let snapshot = client
        .actions
        .create_pod_action(create(
            "Snapshot",
            &rebooted,
            create_pod_action_request::Params::SnapshotParams(SnapshotParams {
                snapshot_location: "/backups/guest".into(),
            }),
        ))
        .await
        .unwrap()
        .into_inner();
    let done = wait_action(&client, &snapshot.name).await;
    assert_eq!(action_state(&done), ActionState::Succeeded, "{done:?}");
    let written = done
        .status
        .as_ref()
        .unwrap()
        .snapshot_status
        .clone()
        .unwrap();
    assert_eq!(written.snapshot_size_in_bytes, 2 << 30, "{written:?}");
    let object = format!("flotilla-{}", snapshot.uid);
    assert!(
        written
            .snapshot_path
            .ends_with(&format!("virtualmachinesnapshots/{object}")),
        "{written:?}"
    );
    let stored = api
        .get("VirtualMachineSnapshot", "default", &object)
        .expect("the snapshot object");
    assert_eq!(stored["spec"]["source"]["name"], "guest");
    assert_eq!(
        stored["metadata"]["annotations"]["flotilla/snapshot-location"],
        "/backups/guest"
    );

    // A node reboot has no Kubernetes API: refused with the reason.
    let node = client
        .actions
        .create_node_action(CreateNodeActionRequest {
            cluster: cluster.clone(),
            node: "node-0".into(),
            action_name: "Reboot".into(),
            params: Some(create_node_action_request::Params::RebootParams(
                RebootParams::default(),
            )),
            request_id: String::new(),
        })
        .await
        .unwrap()
        .into_inner();
    let done = wait_action(&client, &node.name).await;
    assert_eq!(action_state(&done), ActionState::Failed, "{done:?}");
    let reason = &done.status.as_ref().unwrap().reason;
    assert_eq!(reason, "NodeRebootUnsupported", "{done:?}");
    drop(agent);
}
