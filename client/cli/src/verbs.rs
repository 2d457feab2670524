//! Imperative commands of the action and container cluster services.

use clap::Subcommand;
use serde_json::{Value, json};

use crate::output::{self, Format};
use crate::{Ctx, Exit};

#[derive(Subcommand)]
pub enum ActionCommand {
    /// Reboot a VM pod or a node.
    #[command(
        after_help = "Examples:\n  flotilla action reboot --cluster clusterProviders/edge/clusters/cluster1 --pod guest-0 --delay 1\n  flotilla action reboot --cluster clusterProviders/edge/clusters/cluster1 --node cluster1-node-0"
    )]
    Reboot {
        #[arg(long)]
        cluster: String,
        /// The pod, as NAME or NAMESPACE/NAME.
        #[arg(long, conflicts_with = "node", required_unless_present = "node")]
        pod: Option<String>,
        /// The node.
        #[arg(long)]
        node: Option<String>,
        /// Seconds to wait before the reboot.
        #[arg(long, default_value_t = 0)]
        delay: i32,
    },
    /// Snapshot a VM pod to a path on its node.
    #[command(
        after_help = "Example:\n  flotilla action snapshot --cluster clusterProviders/edge/clusters/cluster1 --pod guest-0 --location /var/tmp/snapshots"
    )]
    Snapshot {
        #[arg(long)]
        cluster: String,
        /// The pod, as NAME or NAMESPACE/NAME.
        #[arg(long)]
        pod: String,
        /// An absolute path on the node.
        #[arg(long)]
        location: String,
    },
    /// Cancel a pending or running action.
    #[command(after_help = "Example:\n  flotilla action cancel actions/01a2…")]
    Cancel { name: String },
}

#[derive(Subcommand)]
pub enum ContainerClusterCommand {
    /// Create a container cluster on the IaaS (answers STARTING; VMs come up after).
    #[command(
        after_help = "Example:\n  flotilla cc create --display-name web --zone zone-a --offering small --size 3 --account team-a"
    )]
    Create {
        #[arg(long)]
        display_name: String,
        #[arg(long)]
        zone: String,
        #[arg(long)]
        offering: String,
        #[arg(long)]
        size: i32,
        #[arg(long, default_value = "")]
        account: String,
    },
    /// Start a stopped container cluster.
    #[command(after_help = "Example:\n  flotilla cc start containerClusters/01a2…")]
    Start { name: String },
    /// Stop a running container cluster.
    #[command(after_help = "Example:\n  flotilla cc stop containerClusters/01a2…")]
    Stop { name: String },
    /// Recover a cluster in ALERT.
    #[command(after_help = "Example:\n  flotilla cc recover containerClusters/01a2…")]
    Recover { name: String },
    /// Scale to a number of worker VMs.
    #[command(after_help = "Example:\n  flotilla cc scale containerClusters/01a2… --size 5")]
    Scale {
        name: String,
        #[arg(long)]
        size: i32,
    },
    /// Delete a stopped container cluster (releases its VMs and network).
    #[command(after_help = "Example:\n  flotilla cc delete containerClusters/01a2…")]
    Delete { name: String },
    /// Print the cluster's kubeconfig (-o json/yaml: every credential field).
    #[command(
        after_help = "Example:\n  flotilla cc credentials containerClusters/01a2… > web.kubeconfig"
    )]
    Credentials { name: String },
}

/// `ns/name`, or `name` (no namespace: the server's default, as the API's).
fn pod(text: &str) -> (String, String) {
    match text.split_once('/') {
        Some((ns, name)) => (ns.to_string(), name.to_string()),
        None => (String::new(), text.to_string()),
    }
}

pub async fn action(ctx: &Ctx, command: ActionCommand) -> anyhow::Result<()> {
    let api = ctx.resources().await?;
    let service = "ActionService";
    let answer = match command {
        ActionCommand::Reboot {
            cluster,
            pod: Some(target),
            delay,
            ..
        } => {
            let (namespace, pod) = pod(&target);
            let request = json!({
                "cluster": cluster, "namespace": namespace, "pod": pod,
                "actionName": "Reboot", "rebootParams": { "delayInSeconds": delay },
            });
            api.call_json(service, "CreatePodAction", request).await?
        }
        ActionCommand::Reboot {
            cluster,
            node: Some(node),
            delay,
            ..
        } => {
            let request = json!({
                "cluster": cluster, "node": node,
                "actionName": "Reboot", "rebootParams": { "delayInSeconds": delay },
            });
            api.call_json(service, "CreateNodeAction", request).await?
        }
        ActionCommand::Reboot { .. } => {
            return Err(Exit::new(2, "give --pod or --node").into());
        }
        ActionCommand::Snapshot {
            cluster,
            pod: target,
            location,
        } => {
            let (namespace, pod) = pod(&target);
            let request = json!({
                "cluster": cluster, "namespace": namespace, "pod": pod,
                "actionName": "Snapshot", "snapshotParams": { "snapshotLocation": location },
            });
            api.call_json(service, "CreatePodAction", request).await?
        }
        ActionCommand::Cancel { name } => {
            api.call_json(service, "CancelAction", json!({ "name": name }))
                .await?
        }
    };
    output::print(ctx.output, &[answer], true)
}

pub async fn container_cluster(ctx: &Ctx, command: ContainerClusterCommand) -> anyhow::Result<()> {
    let api = ctx.resources().await?;
    let service = "ContainerClusterService";
    let by_name = |name: &str| json!({ "name": name });
    let answer: Value = match command {
        ContainerClusterCommand::Create {
            display_name,
            zone,
            offering,
            size,
            account,
        } => {
            let request = json!({ "containerCluster": {
                "displayName": display_name, "zoneId": zone, "serviceOfferingId": offering,
                "size": size, "accountName": account,
            }});
            api.call_json(service, "CreateContainerCluster", request)
                .await?
        }
        ContainerClusterCommand::Start { name } => {
            api.call_json(service, "StartContainerCluster", by_name(&name))
                .await?
        }
        ContainerClusterCommand::Stop { name } => {
            api.call_json(service, "StopContainerCluster", by_name(&name))
                .await?
        }
        ContainerClusterCommand::Recover { name } => {
            api.call_json(service, "RecoverContainerCluster", by_name(&name))
                .await?
        }
        ContainerClusterCommand::Scale { name, size } => {
            let request = json!({ "name": name, "size": size });
            api.call_json(service, "ScaleContainerCluster", request)
                .await?
        }
        ContainerClusterCommand::Delete { name } => {
            api.call_json(service, "DeleteContainerCluster", by_name(&name))
                .await?;
            println!("{name} deleting");
            return Ok(());
        }
        ContainerClusterCommand::Credentials { name } => {
            let credentials = api
                .call_json(service, "GetContainerClusterCredentials", by_name(&name))
                .await?;
            if matches!(ctx.output, Format::Table | Format::Wide) {
                print!("{}", credentials["kubeconfig"].as_str().unwrap_or_default());
                return Ok(());
            }
            credentials
        }
    };
    output::print(ctx.output, &[answer], true)
}
