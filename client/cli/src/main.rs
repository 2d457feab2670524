//! `flotilla`: the command line of Flotilla.

mod apply;
mod dynamic;
mod kinds;
mod output;
mod resources;
mod status;
mod verbs;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::{CommandFactory, Parser, Subcommand};
use flotilla_client::{ApiError, Client, ConnectOptions, Token};
use output::Format;
use resources::Resources;
use tonic::Code;

const AFTER_HELP: &str = "\
Examples:
  # What the server holds
  flotilla get projects
  flotilla get groups --parent projects/demo/compositeApps/shop/versions/v1
  # Declare an application in YAML and apply it; again, it is unchanged
  flotilla apply -f examples/demo.yaml
  # Deploy it and follow it
  flotilla approve projects/tour/compositeApps/web/versions/v1/deploymentIntentGroups/prod
  flotilla instantiate projects/tour/compositeApps/web/versions/v1/deploymentIntentGroups/prod
  flotilla status projects/tour/compositeApps/web/versions/v1/deploymentIntentGroups/prod --watch
  flotilla wait projects/tour/compositeApps/web/versions/v1/deploymentIntentGroups/prod --for ready --timeout 5m

Exit codes: 0 done; 1 other errors; 2 usage or invalid input; 3 not found; 4 refused
(a precondition, a conflict, permission); 5 server unavailable; 6 wait timed out;
7 wait failed (resources Failed).";

/// The command line of Flotilla, a multi-cluster control plane.
#[derive(Parser)]
#[command(name = "flotilla", version, after_help = AFTER_HELP)]
struct Cli {
    /// The server: host:port (plaintext), or http:// / https:// URL.
    #[arg(
        long,
        global = true,
        env = "FLOTILLA_SERVER",
        default_value = "localhost:50051"
    )]
    server: String,
    /// Output format.
    #[arg(short, long, global = true, value_enum, default_value_t = Format::Table)]
    output: Format,
    /// Deadline of each call, e.g. 10s, 2m; for `wait`, how long to wait.
    #[arg(long, global = true, default_value = "30s", value_parser = parse_duration)]
    timeout: Duration,
    /// A file holding the bearer token [default: the token in $FLOTILLA_TOKEN]. There
    /// is no flag for the token itself: a command line is seen by every user of the
    /// machine (ps, /proc) and kept in shell histories.
    #[arg(long, global = true)]
    token_file: Option<PathBuf>,
    /// PEM CA certificate to trust (turns TLS on).
    #[arg(long, global = true)]
    ca_cert: Option<PathBuf>,
    /// PEM client certificate (mTLS; with --client-key).
    #[arg(long, global = true)]
    client_cert: Option<PathBuf>,
    /// PEM key of --client-cert.
    #[arg(long, global = true)]
    client_key: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// List resources of a kind, or get one by name.
    #[command(
        after_help = "Examples:\n  flotilla get projects\n  flotilla get groups --parent projects/demo/compositeApps/shop/versions/v1 -o wide\n  flotilla get group projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod -o yaml"
    )]
    Get {
        /// The kind: projects, compositeapps, apps, compositeprofiles, appprofiles,
        /// groups, placementintents, providers, clusters, networkintents, actions
        /// (--parent CLUSTER), containerclusters.
        kind: String,
        /// A resource name; without it, every resource of the kind under --parent.
        name: Option<String>,
        /// The parent of the listed resources (e.g. a project for compositeapps).
        #[arg(long)]
        parent: Option<String>,
    },
    /// Show a resource in full: its fields, conditions and history.
    #[command(
        after_help = "Example:\n  flotilla describe group projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod"
    )]
    Describe { kind: String, name: String },
    /// Create or update the resources of YAML documents (kind, name, spec), in
    /// dependency order; prints created, configured or unchanged per resource.
    #[command(
        after_help = "Examples:\n  flotilla apply -f examples/demo.yaml\n  flotilla apply -f app/ -v values.yaml --dry-run\n  cat demo.yaml | flotilla apply -f -"
    )]
    Apply {
        /// A YAML file, a directory of them, or - for stdin.
        #[arg(short, long = "filename", required = true)]
        file: Vec<PathBuf>,
        /// A values file: {{ .Values.key }} in the documents is replaced by its value.
        #[arg(short, long = "values")]
        values: Option<PathBuf>,
        /// Show what would change, change nothing.
        #[arg(long)]
        dry_run: bool,
    },
    /// Delete the resources of YAML documents, children first (an instantiated group
    /// is terminated first).
    #[command(after_help = "Example:\n  flotilla delete -f examples/demo.yaml")]
    Delete {
        #[arg(short, long = "filename", required = true)]
        file: Vec<PathBuf>,
        #[arg(short, long = "values")]
        values: Option<PathBuf>,
    },
    /// Approve a deployment intent group (pins its content).
    #[command(
        after_help = "Example:\n  flotilla approve projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod"
    )]
    Approve { group: String },
    /// Instantiate an approved deployment intent group.
    #[command(
        after_help = "Example:\n  flotilla instantiate projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod"
    )]
    Instantiate { group: String },
    /// Terminate an instantiated deployment intent group.
    #[command(
        after_help = "Example:\n  flotilla terminate projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod"
    )]
    Terminate { group: String },
    /// Roll out the approved pending revision of an instantiated group: only what changed
    /// is applied, what is gone deleted, the rest left running.
    #[command(
        after_help = "Example:\n  flotilla approve GROUP && flotilla rollout GROUP && flotilla wait GROUP --for ready"
    )]
    Rollout { group: String },
    /// Move an instantiated group back to the rendered content of an earlier revision
    /// (see `flotilla describe deploymentIntentGroup GROUP` for its history).
    #[command(after_help = "Example:\n  flotilla rollback GROUP --revision 3")]
    Rollback {
        group: String,
        /// The content revision to go back to.
        #[arg(long)]
        revision: i64,
    },
    /// Move the running deployment of a group to an approved group of another version of
    /// the same composite app; the source ends TERMINATED.
    #[command(
        after_help = "Example:\n  flotilla migrate projects/demo/compositeApps/shop/versions/v1/deploymentIntentGroups/prod \\\n    --to projects/demo/compositeApps/shop/versions/v2/deploymentIntentGroups/prod"
    )]
    Migrate {
        group: String,
        /// The group to move to.
        #[arg(long)]
        to: String,
    },
    /// Apply or terminate a cluster's network intents.
    #[command(
        after_help = "Examples:\n  flotilla network apply clusterProviders/edge/clusters/cluster1\n  flotilla network terminate clusterProviders/edge/clusters/cluster1"
    )]
    Network {
        #[command(subcommand)]
        verb: NetworkVerb,
    },
    /// The status of a deployment intent group: a tree app → cluster → resource.
    #[command(
        after_help = "Examples:\n  flotilla status GROUP\n  flotilla status GROUP --view summary\n  flotilla status GROUP --cluster cluster1 --app collectd -o json\n  flotilla status GROUP --watch"
    )]
    Status(status::StatusArgs),
    /// Wait until a deployment intent group's resources are applied, ready or
    /// terminated; fails fast when resources are Failed.
    #[command(
        after_help = "Examples:\n  flotilla wait GROUP --for ready --timeout 5m\n  flotilla wait GROUP --for terminated --timeout 2m"
    )]
    Wait(status::WaitArgs),
    /// Reboot or snapshot VM pods and nodes (list them with `get actions --parent CLUSTER`).
    Action {
        #[command(subcommand)]
        command: verbs::ActionCommand,
    },
    /// Create, start, stop, scale, recover and delete container clusters on the IaaS.
    #[command(name = "containercluster", visible_alias = "cc")]
    ContainerCluster {
        #[command(subcommand)]
        command: verbs::ContainerClusterCommand,
    },
    /// Print a shell completion script.
    #[command(after_help = "Example:\n  source <(flotilla completion bash)")]
    Completion { shell: clap_complete::Shell },
}

#[derive(Subcommand)]
enum NetworkVerb {
    /// Apply the cluster's network intents.
    #[command(
        after_help = "Example:\n  flotilla network apply clusterProviders/edge/clusters/cluster1"
    )]
    Apply { cluster: String },
    /// Terminate them.
    #[command(
        after_help = "Example:\n  flotilla network terminate clusterProviders/edge/clusters/cluster1"
    )]
    Terminate { cluster: String },
}

/// What a command needs: the connection settings and the output format.
pub struct Ctx {
    options: ConnectOptions,
    pub output: Format,
    /// --timeout: each call's deadline, and how long `wait` waits.
    pub timeout: Duration,
}

impl Ctx {
    /// The typed client, calls bounded by --timeout.
    pub async fn client(&self) -> anyhow::Result<Client> {
        Ok(self.options.clone().connect().await?)
    }

    /// The typed client without a deadline, for watches.
    pub async fn stream_client(&self) -> anyhow::Result<Client> {
        Ok(self.options.clone().timeout(None).connect().await?)
    }

    /// The lifecycle service for the generic resource path.
    pub async fn resources(&self) -> anyhow::Result<Resources> {
        Ok(Resources::new(self.options.transport().await?))
    }
}

/// `10s`, `5m`, `1h`, `500ms`, or plain seconds.
pub fn parse_duration(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let split = text
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(text.len());
    let (number, unit) = text.split_at(split);
    let n: f64 = number
        .parse()
        .map_err(|_| format!("{text:?} is not a duration (e.g. 30s, 5m, 1h)"))?;
    let seconds = match unit {
        "" | "s" => n,
        "ms" => n / 1000.0,
        "m" => n * 60.0,
        "h" => n * 3600.0,
        _ => return Err(format!("{text:?}: the unit is ms, s, m or h")),
    };
    Ok(Duration::from_secs_f64(seconds))
}

/// An error the CLI ends with, and its exit code.
#[derive(Debug)]
pub struct Exit {
    pub code: u8,
    pub message: String,
}

impl Exit {
    pub fn new(code: u8, message: impl Into<String>) -> Exit {
        Exit {
            code,
            message: message.into(),
        }
    }
}

impl std::fmt::Display for Exit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Exit {}

/// The exit code of a refused or failed call.
fn code_of(code: Code) -> u8 {
    match code {
        Code::InvalidArgument | Code::OutOfRange => 2,
        Code::NotFound => 3,
        Code::FailedPrecondition
        | Code::Aborted
        | Code::AlreadyExists
        | Code::PermissionDenied
        | Code::Unauthenticated
        | Code::ResourceExhausted => 4,
        Code::Unavailable | Code::DeadlineExceeded => 5,
        _ => 1,
    }
}

/// An API error in plain words: what happened, why, and which fields.
fn describe(error: &ApiError) -> String {
    let mut text = format!("{} ({:?}", error.message, error.code);
    if !error.reason.is_empty() {
        text.push_str(&format!(", {}", error.reason));
    }
    text.push(')');
    for v in &error.field_violations {
        text.push_str(&format!("\n  field {}: {}", v.field, v.description));
    }
    for v in &error.precondition_violations {
        text.push_str(&format!(
            "\n  {} {}: {}",
            v.kind.to_lowercase(),
            v.subject,
            v.description
        ));
    }
    text
}

fn report(error: anyhow::Error) -> ExitCode {
    if let Some(exit) = error.downcast_ref::<Exit>() {
        eprintln!("error: {exit}");
        return ExitCode::from(exit.code);
    }
    if let Some(status) = error.downcast_ref::<tonic::Status>() {
        let api = ApiError::from(status.clone());
        eprintln!("error: {}", describe(&api));
        return ExitCode::from(code_of(api.code));
    }
    if let Some(api) = error.downcast_ref::<ApiError>() {
        eprintln!("error: {}", describe(api));
        return ExitCode::from(code_of(api.code));
    }
    if let Some(client) = error.downcast_ref::<flotilla_client::Error>() {
        eprintln!("error: {client}");
        return ExitCode::from(match client {
            flotilla_client::Error::Config(_) => 2,
            _ => 5,
        });
    }
    eprintln!("error: {error:#}");
    ExitCode::from(1)
}

#[tokio::main]
async fn main() -> ExitCode {
    // As any Unix filter: a reader that goes away (`flotilla --help | head`) ends the
    // process quietly. Rust ignores SIGPIPE, so each write then failed with "Broken
    // pipe" (clap printed it as an error, println! panicked).
    // SAFETY: restoring a signal's default disposition at start, before any thread
    // that could be writing exists.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
    let cli = Cli::parse();
    match run(cli).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => report(error),
    }
}

async fn run(cli: Cli) -> anyhow::Result<()> {
    let mut options = ConnectOptions::new(cli.server.clone()).timeout(Some(cli.timeout));
    if let Some(file) = &cli.token_file {
        options = options.token(Some(Token::from_file(file)?));
    }
    if let Some(ca) = &cli.ca_cert {
        options = options.ca_certificate_file(ca)?;
    }
    match (&cli.client_cert, &cli.client_key) {
        (Some(cert), Some(key)) => options = options.identity_files(cert, key)?,
        (None, None) => {}
        _ => return Err(Exit::new(2, "--client-cert and --client-key go together").into()),
    }
    let ctx = Ctx {
        options,
        output: cli.output,
        timeout: cli.timeout,
    };
    match cli.command {
        Command::Get { kind, name, parent } => get(&ctx, &kind, name, parent).await,
        Command::Describe { kind, name } => describe_resource(&ctx, &kind, &name).await,
        Command::Apply {
            file,
            values,
            dry_run,
        } => apply::apply(&ctx, &file, values.as_deref(), dry_run).await,
        Command::Delete { file, values } => apply::delete(&ctx, &file, values.as_deref()).await,
        Command::Approve { group } => verb(&ctx, "ApproveDeploymentIntentGroup", &group).await,
        Command::Instantiate { group } => {
            verb(&ctx, "InstantiateDeploymentIntentGroup", &group).await
        }
        Command::Terminate { group } => verb(&ctx, "TerminateDeploymentIntentGroup", &group).await,
        Command::Rollout { group } => verb(&ctx, "RolloutDeploymentIntentGroup", &group).await,
        Command::Rollback { group, revision } => {
            let body = serde_json::json!({ "name": group, "revision": revision });
            verb_with(&ctx, "RollbackDeploymentIntentGroup", &group, body).await
        }
        Command::Migrate { group, to } => {
            let body = serde_json::json!({ "name": group, "target": to });
            verb_with(&ctx, "MigrateDeploymentIntentGroup", &to, body).await
        }
        Command::Network { verb: network } => match network {
            NetworkVerb::Apply { cluster } => {
                verb(&ctx, "ApplyClusterNetworkIntents", &cluster).await
            }
            NetworkVerb::Terminate { cluster } => {
                verb(&ctx, "TerminateClusterNetworkIntents", &cluster).await
            }
        },
        Command::Status(args) => status::status(&ctx, args).await,
        Command::Wait(args) => status::wait(&ctx, args).await,
        Command::Action { command } => verbs::action(&ctx, command).await,
        Command::ContainerCluster { command } => verbs::container_cluster(&ctx, command).await,
        Command::Completion { shell } => {
            clap_complete::generate(
                shell,
                &mut Cli::command(),
                "flotilla",
                &mut std::io::stdout(),
            );
            Ok(())
        }
    }
}

fn kind_of(text: &str) -> anyhow::Result<&'static kinds::Kind> {
    kinds::find(text).ok_or_else(|| {
        Exit::new(
            2,
            format!("unknown kind {text:?}; kinds: {}", kinds::names()),
        )
        .into()
    })
}

async fn get(
    ctx: &Ctx,
    kind: &str,
    name: Option<String>,
    parent: Option<String>,
) -> anyhow::Result<()> {
    let kind = kind_of(kind)?;
    let resources = ctx.resources().await?;
    match name {
        Some(name) => {
            let found = resources.get(kind, &kind.full_name(&name)).await?;
            output::print(ctx.output, &[found], true)
        }
        None => {
            let parent = match (kind.parent, parent) {
                (None, _) => String::new(),
                (Some(_), Some(parent)) => parent,
                (Some(parent_kind), None) => {
                    return Err(Exit::new(
                        2,
                        format!(
                            "listing {} needs --parent (a {parent_kind} name)",
                            kind.aliases[1]
                        ),
                    )
                    .into());
                }
            };
            let mut items = resources.list(kind, &parent).await?;
            if kind.name == "DeploymentIntentGroup"
                && matches!(ctx.output, Format::Table | Format::Wide)
            {
                add_counts(ctx, &mut items).await?;
            }
            if items.is_empty() && matches!(ctx.output, Format::Table | Format::Wide) {
                eprintln!("No {} found.", kind.aliases[1]);
                return Ok(());
            }
            output::print(ctx.output, &items, false)
        }
    }
}

/// Adds each instantiated group's resource counts (applied and ready), which a group
/// table shows as RESOURCES.
async fn add_counts(ctx: &Ctx, groups: &mut [serde_json::Value]) -> anyhow::Result<()> {
    let mut client = ctx.client().await?;
    for group in groups {
        if group["currentInstance"]
            .as_str()
            .unwrap_or_default()
            .is_empty()
        {
            continue;
        }
        let name = group["name"].as_str().unwrap_or_default().to_string();
        let status = client
            .status
            .get_deployment_intent_group_status(
                flotilla_client::v1::GetDeploymentIntentGroupStatusRequest {
                    name,
                    output: flotilla_client::v1::StatusOutput::Summary.into(),
                    ..Default::default()
                },
            )
            .await?
            .into_inner();
        let r = status.rsync_status.unwrap_or_default();
        let d = status.readiness.unwrap_or_default();
        let rendered = r.pending + r.applied + r.failed + r.retrying;
        group["resources"] = serde_json::json!(format!(
            "{}/{} applied, {}/{} ready",
            r.applied,
            rendered,
            d.ready,
            d.ready + d.not_ready
        ));
    }
    Ok(())
}

async fn describe_resource(ctx: &Ctx, kind: &str, name: &str) -> anyhow::Result<()> {
    let kind = kind_of(kind)?;
    let found = ctx
        .resources()
        .await?
        .get(kind, &kind.full_name(name))
        .await?;
    match ctx.output {
        Format::Table | Format::Wide => {
            print!("{}", serde_yaml_ng::to_string(&found)?);
            Ok(())
        }
        format => output::print(format, &[found], true),
    }
}

async fn verb(ctx: &Ctx, rpc: &str, name: &str) -> anyhow::Result<()> {
    verb_with(ctx, rpc, name, serde_json::json!({ "name": name })).await
}

/// A verb with a request body of its own; prints `name` (the resource the answer is)
/// and its state.
async fn verb_with(
    ctx: &Ctx,
    rpc: &str,
    name: &str,
    body: serde_json::Value,
) -> anyhow::Result<()> {
    let after = ctx.resources().await?.verb(rpc, body).await?;
    match ctx.output {
        Format::Table | Format::Wide => {
            let state = after["state"]
                .as_str()
                .or(after["networkIntentsState"].as_str())
                .unwrap_or_default();
            println!("{name}: {}", output::short_state(state).to_lowercase());
            Ok(())
        }
        format => output::print(format, &[after], true),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::*;

    /// Every `flotilla …` in every command's examples (after `--help`), each command of
    /// a `&&` chain or pipeline, with continuation lines joined.
    fn examples(command: &clap::Command, into: &mut Vec<String>) {
        if let Some(help) = command.get_after_help() {
            // A shell line continuation joins its lines.
            let text = help.to_string().replace("\\\n", " ");
            for line in text.lines() {
                for part in line.split(['&', '|', '>', '(', ')']) {
                    if let Some(at) = part.find("flotilla ") {
                        into.push(part[at..].trim().to_string());
                    }
                }
            }
        }
        for sub in command.get_subcommands() {
            examples(sub, into);
        }
    }

    #[test]
    fn every_example_in_the_help_parses() {
        let mut all = Vec::new();
        examples(&Cli::command(), &mut all);
        assert!(all.len() > 20, "{all:?}");
        for example in &all {
            if let Err(error) = Cli::try_parse_from(example.split_whitespace()) {
                panic!("{example}: {error}");
            }
        }
    }
}
