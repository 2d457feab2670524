//! What the real API server decides about the agent's applies: conflicts taken over
//! with `--force-conflicts`, kinds that exist only once their CRD is installed, lists in
//! pages, label values bounded at 63 characters; and the in-cluster manifests of
//! `deploy/` taken as they are.

use super::*;

/// With `--force-conflicts` the agent takes over a field Helm owns.
pub(super) async fn force_conflicts_takes_fields_over(server: &TestServer) {
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    let ns = namespace();
    let mut client = server.client().await;
    let _agent = kube_agent(server, &mut client, plane, &["--force-conflicts"]).await;
    helm_owns_mode(&admin, &ns).await;
    let settings = in_namespace(
        "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: shared-settings\ndata:\n  mode: flotilla\n",
        &ns,
    );
    let dig = group(&mut client, &[("settings", &settings)]).await;
    instantiate(&mut client, &dig).await;
    wait_summary(&client, &dig, "the ConfigMap to be applied", |r, c, _| {
        r.applied == 1 && c.present == 1
    })
    .await;
    let configs: Api<ConfigMap> = Api::namespaced(admin, &ns);
    let taken = configs.get("shared-settings").await.unwrap();
    assert_eq!(taken.data.as_ref().unwrap()["mode"], "flotilla");
    let managers: Vec<(String, String)> = taken
        .metadata
        .managed_fields
        .unwrap_or_default()
        .into_iter()
        .map(|m| {
            let fields = m.fields_v1.map(|f| f.0.to_string()).unwrap_or_default();
            (m.manager.unwrap_or_default(), fields)
        })
        .collect();
    let owner_of_mode = managers
        .iter()
        .filter(|(_, fields)| fields.contains("f:mode"))
        .map(|(manager, _)| manager.as_str())
        .collect::<Vec<_>>();
    assert_eq!(owner_of_mode, ["flotilla"], "{managers:?}");
}

/// The CRDs of the network intents' CRs (ovn4nfv's ProviderNetwork and Network).
fn network_crds() -> Vec<Value> {
    [
        ("ProviderNetwork", "providernetworks"),
        ("Network", "networks"),
    ]
    .iter()
    .map(|(kind, plural)| {
        json!({
            "apiVersion": "apiextensions.k8s.io/v1",
            "kind": "CustomResourceDefinition",
            "metadata": {"name": format!("{plural}.k8s.plugin.opnfv.org")},
            "spec": {
                "group": "k8s.plugin.opnfv.org",
                "names": {"kind": kind, "plural": plural, "singular": kind.to_lowercase(),
                          "listKind": format!("{kind}List")},
                "scope": "Namespaced",
                "versions": [{
                    "name": "v1alpha1", "served": true, "storage": true,
                    "schema": {"openAPIV3Schema": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": true,
                    }},
                    "subresources": {"status": {}},
                }],
            },
        })
    })
    .collect()
}

/// A cluster's network intents become ovn4nfv CRs once their CRDs are installed, and
/// the agent (as deploy/rbac.yaml's ServiceAccount) may write them.
pub(super) async fn network_intents_apply_once_their_crds_are_installed(server: &TestServer) {
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    for crd in network_crds() {
        controlplane::apply(&admin, &crd, "kubectl").await.unwrap();
    }
    let crds = controlplane::api_of(
        &admin,
        "apiextensions.k8s.io/v1",
        "CustomResourceDefinition",
        "customresourcedefinitions",
        None,
    );
    eventually(WAIT, "the CRDs to be Established", || {
        let crds = crds.clone();
        async move {
            for crd in network_crds() {
                let got = crds.get(crd["metadata"]["name"].as_str()?).await.ok()?;
                let established = got.data["status"]["conditions"]
                    .as_array()?
                    .iter()
                    .any(|c| c["type"] == "Established" && c["status"] == "True");
                if !established {
                    return None;
                }
            }
            Some(())
        }
    })
    .await;
    let mut client = server.client().await;
    let _agent = kube_agent(server, &mut client, plane, &[]).await;
    // A name of this test's own: the CRs land in the default namespace, which the
    // other tests on this control plane share.
    let id = namespace();
    let cluster = names::cluster("cp", "k1");
    client
        .lifecycle
        .create_network_intent(CreateNetworkIntentRequest {
            parent: cluster.clone(),
            network_intent_id: id.clone(),
            network_intent: Some(NetworkIntent {
                spec: Some(network_intent::Spec::ProviderNetwork(ProviderNetworkSpec {
                    cni_type: "ovn4nfv".into(),
                    provider_net_type: ProviderNetworkType::Vlan as i32,
                    ipv4_subnets: vec![Ipv4Subnet {
                        name: "subnet1".into(),
                        subnet: "172.16.33.0/24".into(),
                        gateway: "172.16.33.1/24".into(),
                        ..Default::default()
                    }],
                    vlan: Some(Vlan {
                        vlan_id: 100,
                        provider_interface_name: "eth1".into(),
                        logical_interface_name: "eth1.100".into(),
                        vlan_node_selector: "all".into(),
                        ..Default::default()
                    }),
                })),
                ..Default::default()
            }),
            ..Default::default()
        })
        .await
        .unwrap();
    client
        .lifecycle
        .apply_cluster_network_intents(ApplyClusterNetworkIntentsRequest {
            name: cluster.clone(),
            ..Default::default()
        })
        .await
        .unwrap();
    let networks = controlplane::api_of(
        &admin,
        "k8s.plugin.opnfv.org/v1alpha1",
        "ProviderNetwork",
        "providernetworks",
        Some("default"),
    );
    let cr = eventually(WAIT, "the ProviderNetwork CR to be applied", || {
        let networks = networks.clone();
        let id = id.clone();
        async move { networks.get_opt(&id).await.ok()? }
    })
    .await;
    assert_eq!(cr.data["spec"]["vlan"]["vlanId"], "100", "{cr:?}");
    assert_eq!(cr.data["spec"]["providerNetType"], "VLAN", "{cr:?}");
    eventually(
        WAIT,
        "the network status to show it Applied, cluster status Unknown",
        || {
            let mut client = client.clone();
            let cluster = cluster.clone();
            async move {
                let status = client
                    .status
                    .get_cluster_network_status(GetClusterNetworkStatusRequest {
                        name: cluster,
                        output: StatusOutput::Summary as i32,
                        ..Default::default()
                    })
                    .await
                    .ok()?
                    .into_inner();
                let (rsync, cluster) = (status.rsync_status?, status.cluster_status?);
                // Applied; its cluster status Unknown: CRs are not of the monitored kinds
                // (DESIGN §9).
                (rsync.applied == 1 && rsync.failed == 0 && cluster.unknown == 1).then_some(())
            }
        },
    )
    .await;
}

/// The monitor lists in pages (here 5 objects a page) and follows the continue tokens:
/// an agent that starts over 12 objects reports all 12, and the API server's audit log
/// shows the pages.
pub(super) async fn lists_are_paged(server: &TestServer) {
    let plane = ControlPlane::shared();
    let ns = namespace();
    let mut client = server.client().await;
    let token = clusters(&mut client, &["k1"]).await.remove("k1").unwrap();
    let agent = start_kube_agent(server, &token, plane, &["--kube-list-page-size", "5"]);
    wait_connectivity(
        &client,
        &names::cluster("cp", "k1"),
        Connectivity::Available,
    )
    .await;
    let configs: String = (0..12)
        .map(|i| format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c{i}\n  namespace: {ns}\ndata:\n  k: v\n"))
        .collect::<Vec<_>>()
        .join("---\n");
    let dig = group(&mut client, &[("configs", &configs)]).await;
    instantiate(&mut client, &dig).await;
    wait_summary(&client, &dig, "12 ConfigMaps applied", |r, c, _| {
        r.applied == 12 && c.present == 12
    })
    .await;
    // A new agent (its session replaces the first's) lists what is there, in pages.
    drop(agent);
    let cluster = names::cluster("cp", "k1");
    let before = plane.agent_requests().len();
    let _agent = start_kube_agent(server, &token, plane, &["--kube-list-page-size", "5"]);
    wait_connectivity(&client, &cluster, Connectivity::Available).await;
    wait_summary(&client, &dig, "the 12 to be reported again", |r, c, _| {
        r.applied == 12 && c.present == 12
    })
    .await;
    // The new session's lists: its connectivity and the counts may read as before while
    // it still lists (the old session's state), so they are waited for in the API
    // server's audit log, not assumed done.
    let pages = |plane: &ControlPlane| -> Vec<String> {
        plane.agent_requests()[before..]
            .iter()
            .filter(|e| e["verb"] == "list" && e["objectRef"]["resource"] == "configmaps")
            .filter_map(|e| e["requestURI"].as_str().map(String::from))
            .collect()
    };
    eventually(
        WAIT,
        "the new agent's lists of 5 and their continue token",
        || {
            let pages = pages(plane);
            let paged = pages.iter().any(|uri| uri.contains("limit=5"))
                && pages.iter().any(|uri| uri.contains("continue="));
            async move { paged.then_some(()) }
        },
    )
    .await;
}

/// An app id of 63 characters (the longest valid name) makes a deployment id of 100:
/// the label is bounded, the whole id is in the annotation, and the group reaches Ready.
pub(super) async fn an_app_id_of_63_characters_deploys(server: &TestServer) {
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    let ns = namespace();
    let mut client = server.client().await;
    let _agent = kube_agent(server, &mut client, plane, &[]).await;
    let app = format!("a{}", "b".repeat(61)) + "c";
    assert_eq!(app.len(), 63);
    let dig = group(&mut client, &[(&app, &in_namespace(WEB, &ns))]).await;
    instantiate(&mut client, &dig).await;
    wait_summary(
        &client,
        &dig,
        "the long-named app to be ready",
        |r, c, ready| r.applied == 3 && c.present == 5 && ready.ready == 5,
    )
    .await;
    let instance = summary(&mut client, &dig, &[]).await.instance;
    let deployments: Api<Deployment> = Api::namespaced(admin, &ns);
    let web = deployments.get("web").await.unwrap();
    let label = &web.metadata.labels.as_ref().unwrap()["flotilla/deployment-id"];
    let annotation = &web.metadata.annotations.as_ref().unwrap()["flotilla/deployment-id"];
    assert!(label.len() <= 63, "{label}");
    assert!(annotation.ends_with(&format!("-{app}")), "{annotation}");
    assert!(
        instance.ends_with(annotation.trim_end_matches(&format!("-{app}"))),
        "{instance} carries {annotation}"
    );
}

/// The in-cluster manifests agree with each other and with the guide, and the API
/// server takes the agent's Deployment, whose pod kwok runs.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deploy_manifests_hold_together() {
    let namespace = controlplane::deploy_documents("namespace.yaml");
    let ns = namespace[0]["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(ns, controlplane::AGENT_NAMESPACE);
    let rbac = controlplane::deploy_documents("rbac.yaml");
    let find = |kind: &str| {
        rbac.iter()
            .find(|d| d["kind"] == kind)
            .unwrap_or_else(|| panic!("rbac.yaml has a {kind}"))
    };
    let account = find("ServiceAccount");
    assert_eq!(account["metadata"]["namespace"], ns.as_str());
    assert_eq!(account["metadata"]["name"], controlplane::AGENT_ACCOUNT);
    let binding = find("ClusterRoleBinding");
    assert_eq!(
        binding["roleRef"]["name"],
        find("ClusterRole")["metadata"]["name"]
    );
    assert_eq!(binding["subjects"][0]["name"], account["metadata"]["name"]);
    assert_eq!(binding["subjects"][0]["namespace"], ns.as_str());
    let agent = controlplane::deploy_documents("agent.yaml").remove(0);
    assert_eq!(agent["metadata"]["namespace"], ns.as_str());
    let pod = &agent["spec"]["template"]["spec"];
    assert_eq!(pod["serviceAccountName"], account["metadata"]["name"]);
    let container = &pod["containers"][0];
    assert_eq!(container["args"], json!(["--backend", "kube"]));
    let secret = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "FLOTILLA_AGENT_TOKEN")
        .expect("the token from a Secret");
    let secret_name = secret["valueFrom"]["secretKeyRef"]["name"]
        .as_str()
        .unwrap();
    let guide = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../docs/guide/real-clusters.md"
    ))
    .unwrap();
    assert!(
        guide.contains(&format!("-n {ns} create secret generic {secret_name}")),
        "the real-cluster guide creates the Secret the Deployment reads"
    );
    // The control plane applied namespace.yaml and rbac.yaml; the API server takes the
    // agent's Deployment as it is, and its pod is scheduled and runs.
    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    controlplane::apply(&admin, &agent, "kubectl")
        .await
        .unwrap();
    let pods: Api<Pod> = Api::namespaced(admin, &ns);
    eventually(WAIT, "the agent Deployment's pod to run", || {
        let pods = pods.clone();
        async move {
            let list = pods
                .list(&ListParams::default().labels("app=flotilla-agent"))
                .await
                .ok()?;
            list.items
                .iter()
                .any(|p| {
                    p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running")
                        && p.spec
                            .as_ref()
                            .and_then(|s| s.service_account_name.as_deref())
                            == Some(controlplane::AGENT_ACCOUNT)
                })
                .then_some(())
        }
    })
    .await;
}

/// deploy/server.yaml holds together (the Services select the StatefulSet's pods, each
/// replica's id and advertised address come from its pod name under the headless
/// Service, the ConfigMap turns etcd coordination on), and the API server takes it as
/// it is: three replicas, started one at a time, run.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_manifests_run_three_replicas() {
    let documents = controlplane::deploy_documents("server.yaml");
    let find = |kind: &str, name: &str| {
        documents
            .iter()
            .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
            .unwrap_or_else(|| panic!("server.yaml has {kind} {name}"))
            .clone()
    };
    let ns = documents[0]["metadata"]["name"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(documents[0]["kind"], "Namespace");
    let set = find("StatefulSet", "flotilla");
    assert_eq!(set["spec"]["replicas"], 3);
    assert_eq!(set["spec"]["podManagementPolicy"], "OrderedReady");
    let labels = &set["spec"]["template"]["metadata"]["labels"];
    assert_eq!(&set["spec"]["selector"]["matchLabels"], labels);
    let peers = set["spec"]["serviceName"].as_str().unwrap();
    let headless = find("Service", peers);
    assert_eq!(headless["spec"]["clusterIP"], "None");
    for service in [find("Service", "flotilla"), headless] {
        assert_eq!(&service["spec"]["selector"], labels, "{service}");
        assert_eq!(service["spec"]["ports"][0]["targetPort"], "grpc");
    }
    let container = &set["spec"]["template"]["spec"]["containers"][0];
    let env: std::collections::BTreeMap<&str, &Value> = container["env"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["name"].as_str().unwrap(), e))
        .collect();
    assert_eq!(
        env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.name"
    );
    assert_eq!(env["FLOTILLA_REPLICA_ID"]["value"], "$(POD_NAME)");
    let advertised = env["FLOTILLA_ADVERTISE_ADDRESS"]["value"].as_str().unwrap();
    assert!(
        advertised.starts_with(&format!("https://$(POD_NAME).{peers}.{ns}.svc:")),
        "{advertised}"
    );
    // The replicas trust each other's certificates: creates are passed to owners.
    let mounted = |path: &str| {
        let tls = container["volumeMounts"]
            .as_array()
            .unwrap()
            .iter()
            .find(|m| m["name"] == "tls")
            .expect("the tls volume is mounted");
        path.starts_with(tls["mountPath"].as_str().unwrap())
    };
    for file in ["FLOTILLA_TLS_CERT", "FLOTILLA_PEER_CA_FILE"] {
        assert!(mounted(env[file]["value"].as_str().unwrap()), "{file}");
    }
    let config = find("ConfigMap", "flotilla-server");
    assert_eq!(config["data"]["FLOTILLA_COORDINATION"], "etcd");
    assert!(config["data"]["FLOTILLA_ETCD_ENDPOINTS"].is_string());
    assert_eq!(
        container["envFrom"][0]["configMapRef"]["name"],
        config["metadata"]["name"]
    );

    let plane = ControlPlane::shared();
    let admin = plane.admin().await;
    for document in &documents {
        controlplane::apply(&admin, document, "kubectl")
            .await
            .unwrap_or_else(|e| panic!("{}: {e}", document["kind"]));
    }
    let pods: Api<Pod> = Api::namespaced(admin, &ns);
    eventually(WAIT, "three server replicas running", || {
        let pods = pods.clone();
        async move {
            let list = pods
                .list(&ListParams::default().labels("app=flotilla-server"))
                .await
                .ok()?;
            let mut running: Vec<String> = list
                .items
                .iter()
                .filter(|p| p.status.as_ref().and_then(|s| s.phase.as_deref()) == Some("Running"))
                .filter_map(|p| p.metadata.name.clone())
                .collect();
            running.sort();
            (running == ["flotilla-0", "flotilla-1", "flotilla-2"]).then_some(())
        }
    })
    .await;
}
