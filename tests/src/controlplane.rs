//! A real Kubernetes control plane for the tests: etcd, kube-apiserver (RBAC on, serving
//! certificates and service-account keys made here), kube-controller-manager,
//! kube-scheduler and kwok (fake nodes whose pods it runs through the real API: scheduled,
//! then Running and Ready), on free loopback ports. The binaries are the ones
//! `scripts/kube/build.sh` builds from the Go modules pinned in `scripts/kube/go.mod`
//! (`FLOTILLA_KUBE_BIN`, which `scripts/setup.sh` exports).
//!
//! [`ControlPlane::shared`] starts one per test binary, which its tests share in
//! namespaces of their own; [`ControlPlane::start`] one that ends when dropped. The agent
//! connects with a token of `deploy/rbac.yaml`'s ServiceAccount (TokenRequest), so what
//! the real agent may do in a cluster is exactly what it may do here.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Mutex, OnceLock, mpsc};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::{Node, ServiceAccount};
use kube::api::{Api, Patch, PatchParams, PostParams};
use kube::core::{ApiResource, DynamicObject, GroupVersionKind};
use serde_json::{Value, json};

use crate::free_port;

/// The kubeconfig context every kubeconfig written here names.
pub const CONTEXT: &str = "flotilla-test";
/// The namespace and ServiceAccount of `deploy/rbac.yaml` the agent runs as.
pub const AGENT_NAMESPACE: &str = "flotilla-system";
pub const AGENT_ACCOUNT: &str = "flotilla-agent";
/// How long the whole control plane may take to come up.
const START_TIMEOUT: Duration = Duration::from_secs(180);

/// What a control plane starts with.
#[derive(Debug, Clone)]
pub struct Options {
    /// kwok nodes.
    pub nodes: usize,
    /// Every request of the agent's ServiceAccount in the API server's audit log
    /// (metadata level; deletes with their options), for tests that count or inspect
    /// its calls.
    pub audit: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            nodes: 3,
            audit: true,
        }
    }
}

/// The directory of the Kubernetes binaries.
pub fn binaries() -> PathBuf {
    let dir = std::env::var_os("FLOTILLA_KUBE_BIN")
        .map(PathBuf::from)
        .expect(
            "FLOTILLA_KUBE_BIN is not set: run the suite with scripts/test.sh, or \
         `export FLOTILLA_KUBE_BIN=$(scripts/kube/build.sh)`",
        );
    for name in BINARIES {
        assert!(
            dir.join(name).exists(),
            "{} has no {name}: rebuild with scripts/kube/build.sh",
            dir.display()
        );
    }
    dir
}

const BINARIES: [&str; 5] = [
    "etcd",
    "kube-apiserver",
    "kube-controller-manager",
    "kube-scheduler",
    "kwok",
];

/// A running control plane.
pub struct ControlPlane {
    dir: tempfile::TempDir,
    bin: PathBuf,
    /// `https://127.0.0.1:PORT`.
    pub server: String,
    /// etcd's client URL.
    pub etcd: String,
    /// kube-apiserver's `--version` (e.g. `Kubernetes v1.37.2`).
    pub version: String,
    /// The admin's kubeconfig (system:masters).
    pub admin_kubeconfig: PathBuf,
    /// The agent's kubeconfig: a token of `flotilla-system/flotilla-agent`.
    pub agent_kubeconfig: PathBuf,
    /// The agent's identity as the API server sees it.
    pub agent_user: String,
    apiserver_args: Vec<String>,
    children: Mutex<Vec<(&'static str, Child)>>,
    audit: Option<PathBuf>,
    /// Whether it ends when dropped (a shared one lives as long as its test binary).
    owned: bool,
}

static SHARED_DIR: OnceLock<PathBuf> = OnceLock::new();

/// The tokens of the static token file: the admin's (its kubeconfig) and the
/// controllers'.
const ADMIN_TOKEN_LEN: usize = 32;

impl ControlPlane {
    /// The control plane the tests of this binary share, started on first use (about
    /// ten seconds). Its processes end with the test binary.
    pub fn shared() -> &'static ControlPlane {
        static SHARED: OnceLock<ControlPlane> = OnceLock::new();
        SHARED.get_or_init(|| {
            // Its own thread: the caller may be inside a runtime, which must not block on
            // another.
            let mut plane = std::thread::spawn(|| Self::start_blocking(Options::default()))
                .join()
                .unwrap_or_else(|_| panic!("the shared control plane did not start"));
            plane.owned = false;
            // Statics are never dropped: its files go when the test binary exits (its
            // processes die with the keeper thread).
            SHARED_DIR.get_or_init(|| plane.dir.path().to_path_buf());
            extern "C" fn remove_shared_dir() {
                if let Some(dir) = SHARED_DIR.get() {
                    let _ = std::fs::remove_dir_all(dir);
                }
            }
            // SAFETY: registers a plain function with no captured state.
            unsafe { libc::atexit(remove_shared_dir) };
            plane
        })
    }

    /// A control plane of its own, ended when dropped.
    pub async fn start(options: Options) -> ControlPlane {
        tokio::task::spawn_blocking(move || Self::start_blocking(options))
            .await
            .expect("control plane start")
    }

    fn start_blocking(options: Options) -> ControlPlane {
        let started = Instant::now();
        let bin = binaries();
        let dir = tempfile::Builder::new()
            .prefix("flotilla-kube-")
            .tempdir()
            .expect("control plane dir");
        let path = |name: &str| dir.path().join(name);
        let version = command_output(&bin.join("kube-apiserver"), &["--version"]);

        // Certificates: a CA, the API server's serving certificate, and the key that
        // signs service-account tokens.
        let ca = crate::tls::TestCa::new("flotilla-test-kubernetes-ca");
        std::fs::write(path("ca.crt"), &ca.pem).unwrap();
        let (cert, key) = ca.leaf(
            "kube-apiserver",
            &[
                "127.0.0.1",
                "localhost",
                "kubernetes",
                "kubernetes.default",
                "kubernetes.default.svc",
                "10.96.0.1",
            ],
            false,
        );
        std::fs::write(path("apiserver.crt"), cert).unwrap();
        std::fs::write(path("apiserver.key"), key).unwrap();
        // The key pair that signs and verifies service-account tokens (ECDSA P-256).
        let signing = rcgen::KeyPair::generate().expect("signing key");
        std::fs::write(path("sa.key"), signing.serialize_pem()).unwrap();
        std::fs::write(path("sa.pub"), signing.public_key_pem()).unwrap();
        let admin_token = random_token(ADMIN_TOKEN_LEN);
        std::fs::write(
            path("tokens.csv"),
            format!("{admin_token},flotilla-test-admin,admin,\"system:masters\"\n"),
        )
        .unwrap();

        let etcd_port = free_port();
        let peer_port = free_port();
        let etcd = format!("http://127.0.0.1:{etcd_port}");
        let port = free_port();
        let server = format!("https://127.0.0.1:{port}");
        let admin_kubeconfig = path("admin.kubeconfig");
        std::fs::write(
            &admin_kubeconfig,
            kubeconfig(&server, &ca.pem, &admin_token),
        )
        .unwrap();

        let audit = options.audit.then(|| path("audit.log"));
        let agent_user = format!("system:serviceaccount:{AGENT_NAMESPACE}:{AGENT_ACCOUNT}");
        let mut apiserver_args: Vec<String> = [
            format!("--etcd-servers={etcd}"),
            "--bind-address=127.0.0.1".into(),
            "--advertise-address=127.0.0.1".into(),
            // The `kubernetes` Service's endpoints may not be a loopback address; nothing
            // here dials the API server through that Service.
            "--endpoint-reconciler-type=none".into(),
            format!("--secure-port={port}"),
            format!("--cert-dir={}", path("certs").display()),
            format!("--tls-cert-file={}", path("apiserver.crt").display()),
            format!("--tls-private-key-file={}", path("apiserver.key").display()),
            format!("--client-ca-file={}", path("ca.crt").display()),
            format!("--token-auth-file={}", path("tokens.csv").display()),
            "--authorization-mode=RBAC".into(),
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local".into(),
            format!("--service-account-key-file={}", path("sa.pub").display()),
            format!(
                "--service-account-signing-key-file={}",
                path("sa.key").display()
            ),
            "--service-cluster-ip-range=10.96.0.0/16".into(),
            "--allow-privileged=true".into(),
            "--profiling=false".into(),
            // One client, no tenants to protect from each other: priority and fairness
            // would only cost CPU.
            "--enable-priority-and-fairness=false".into(),
        ]
        .into();
        if let Some(audit) = &audit {
            std::fs::write(
                path("audit-policy.yaml"),
                format!(
                    "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\n\
                     rules:\n- level: Request\n  users: [\"{agent_user}\"]\n  verbs: [delete]\n\
                     - level: Metadata\n  users: [\"{agent_user}\"]\n- level: None\n"
                ),
            )
            .unwrap();
            apiserver_args.extend([
                format!(
                    "--audit-policy-file={}",
                    path("audit-policy.yaml").display()
                ),
                format!("--audit-log-path={}", audit.display()),
                "--audit-log-format=json".into(),
                "--audit-log-mode=blocking".into(),
            ]);
        }

        let plane = ControlPlane {
            bin,
            server,
            etcd: etcd.clone(),
            version,
            admin_kubeconfig,
            agent_kubeconfig: path("agent.kubeconfig"),
            agent_user,
            apiserver_args,
            children: Mutex::new(Vec::new()),
            audit,
            owned: true,
            dir,
        };
        plane.spawn(
            "etcd",
            &[
                "--name=cp".into(),
                format!("--data-dir={}", plane.path("etcd").display()),
                format!("--listen-client-urls={etcd}"),
                format!("--advertise-client-urls={etcd}"),
                format!("--listen-peer-urls=http://127.0.0.1:{peer_port}"),
                format!("--initial-advertise-peer-urls=http://127.0.0.1:{peer_port}"),
                format!("--initial-cluster=cp=http://127.0.0.1:{peer_port}"),
                // A test cluster's data dies with it: no fsync.
                "--unsafe-no-fsync".into(),
                "--log-level=warn".into(),
            ],
        );
        plane.spawn_apiserver();
        let runtime = runtime();
        runtime.block_on(plane.wait_ready(started));
        let kubeconfig_arg = format!("--kubeconfig={}", plane.admin_kubeconfig.display());
        plane.spawn(
            "kube-controller-manager",
            &[
                kubeconfig_arg.clone(),
                "--leader-elect=false".into(),
                "--secure-port=0".into(),
                format!(
                    "--service-account-private-key-file={}",
                    plane.path("sa.key").display()
                ),
                format!("--root-ca-file={}", plane.path("ca.crt").display()),
                "--use-service-account-credentials=false".into(),
                // client-go's default of 20 requests/s would make the controllers, not
                // the API server, the limit of a few hundred Deployments.
                "--kube-api-qps=200".into(),
                "--kube-api-burst=400".into(),
                // Fake nodes have no CIDRs, clouds or volumes to attach.
                "--controllers=*,-node-ipam-controller,-persistentvolume-attach-detach-controller,\
                 -persistentvolume-binder-controller,-persistentvolume-expander-controller"
                    .into(),
            ],
        );
        plane.spawn(
            "kube-scheduler",
            &[
                kubeconfig_arg.clone(),
                "--kube-api-qps=200".into(),
                "--kube-api-burst=400".into(),
                "--leader-elect=false".into(),
                "--secure-port=0".into(),
            ],
        );
        plane.spawn(
            "kwok",
            &[
                kubeconfig_arg,
                format!("--config={}", plane.bin.join("kwok-stages.yaml").display()),
                "--node-lease-duration-seconds=40".into(),
                "--manage-all-nodes=false".into(),
                format!("--manage-nodes-with-annotation-selector={KWOK_ANNOTATION}=fake"),
                "--cidr=10.244.0.0/16".into(),
                "--node-ip=10.244.255.254".into(),
                format!("--server-address=127.0.0.1:{}", free_port()),
            ],
        );
        runtime.block_on(plane.bootstrap(&options, started));
        eprintln!(
            "control plane up: {} ({} kwok nodes) at {} in {:.1} s, in {}",
            plane.version,
            options.nodes,
            plane.server,
            started.elapsed().as_secs_f64(),
            plane.dir.path().display()
        );
        plane
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// The directory of its files and process logs.
    pub fn dir(&self) -> &Path {
        self.dir.path()
    }

    fn spawn(&self, name: &'static str, args: &[String]) {
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.path(&format!("{name}.log")))
            .expect("process log");
        let mut command = Command::new(self.bin.join(name));
        command
            .args(args)
            .stdin(Stdio::null())
            .stdout(log.try_clone().unwrap())
            .stderr(log);
        let child = keeper::spawn(command);
        self.children.lock().unwrap().push((name, child));
    }

    fn spawn_apiserver(&self) {
        self.spawn("kube-apiserver", &self.apiserver_args.clone());
    }

    /// The first of its processes that has exited, if one has.
    fn exited(&self) -> Option<&'static str> {
        let mut children = self.children.lock().unwrap();
        children
            .iter_mut()
            .find_map(|(name, child)| (!matches!(child.try_wait(), Ok(None))).then_some(*name))
    }

    fn pid(&self, name: &str) -> Option<u32> {
        self.children
            .lock()
            .unwrap()
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, c)| c.id())
    }

    /// Stops the API server answering (SIGSTOP): connections stay open, nothing is
    /// answered, as a hung or partitioned API server.
    pub fn pause_apiserver(&self) {
        self.signal("kube-apiserver", libc::SIGSTOP);
    }

    /// Lets a paused API server go on (SIGCONT).
    pub fn resume_apiserver(&self) {
        self.signal("kube-apiserver", libc::SIGCONT);
    }

    fn signal(&self, name: &str, signal: i32) {
        let pid = self
            .pid(name)
            .unwrap_or_else(|| panic!("{name} is not running"));
        // SAFETY: kill(2) on a child of ours.
        unsafe { libc::kill(pid as i32, signal) };
    }

    /// Compacts etcd at its current revision, then restarts the API server: its watch
    /// cache starts over at the new revision, so a client resuming a watch from an
    /// older resourceVersion gets `410 Gone` and must list again.
    pub async fn compact_and_restart_apiserver(&self) {
        let mut etcd = etcd_client::Client::connect([self.etcd.as_str()], None)
            .await
            .expect("etcd");
        let revision = etcd
            .get("compact-probe", None)
            .await
            .expect("etcd get")
            .header()
            .expect("header")
            .revision();
        {
            let mut children = self.children.lock().unwrap();
            let at = children
                .iter()
                .position(|(n, _)| *n == "kube-apiserver")
                .expect("the API server runs");
            let (_, mut child) = children.remove(at);
            let _ = child.kill();
            let _ = child.wait();
        }
        etcd.compact(
            revision,
            Some(etcd_client::CompactionOptions::new().with_physical()),
        )
        .await
        .expect("etcd compaction");
        self.spawn_apiserver();
        self.wait_ready(Instant::now()).await;
    }

    async fn wait_ready(&self, started: Instant) {
        let client = self.admin().await;
        loop {
            let request = http::Request::get("/readyz").body(Vec::new()).unwrap();
            match client.request_text(request).await {
                Ok(body) if body.trim() == "ok" => return,
                other => {
                    if let Some(exited) = self.exited() {
                        panic!("{exited} exited:\n{}", self.log_tail(exited, 40));
                    }
                    if started.elapsed() > START_TIMEOUT {
                        panic!(
                            "kube-apiserver not ready after {START_TIMEOUT:?}: {other:?}\n{}",
                            self.log_tail("kube-apiserver", 40)
                        );
                    }
                }
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    }

    /// Nodes, the agent's namespace, ServiceAccount and roles (`deploy/`), its token;
    /// waits until the controllers and kwok have done their part.
    async fn bootstrap(&self, options: &Options, started: Instant) {
        let client = self.admin().await;
        let nodes: Api<Node> = Api::all(client.clone());
        for i in 0..options.nodes {
            let node: Node = serde_json::from_value(json!({
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": format!("kwok-node-{i}"),
                    "annotations": {KWOK_ANNOTATION: "fake", "node.alpha.kubernetes.io/ttl": "0"},
                    "labels": {"type": "kwok", "kubernetes.io/hostname": format!("kwok-node-{i}"),
                               "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64"},
                },
                "status": {
                    "allocatable": {"cpu": "32", "memory": "256Gi", "pods": "250"},
                    "capacity": {"cpu": "32", "memory": "256Gi", "pods": "250"},
                    "nodeInfo": {"kubeletVersion": "fake", "kubeProxyVersion": "fake",
                                 "architecture": "amd64", "operatingSystem": "linux"},
                },
            }))
            .unwrap();
            nodes
                .create(&PostParams::default(), &node)
                .await
                .expect("create a kwok node");
        }
        for file in ["namespace.yaml", "rbac.yaml"] {
            for document in deploy_documents(file) {
                apply(&client, &document, "kubectl").await.expect(file);
            }
        }
        // kwok marks its nodes Ready; the controller-manager makes every namespace's
        // default ServiceAccount (pods need one to be admitted).
        crate::eventually(
            START_TIMEOUT.saturating_sub(started.elapsed()),
            "kwok's nodes to be Ready and the default ServiceAccount to exist",
            || {
                let client = client.clone();
                let wanted = options.nodes;
                async move {
                    let nodes: Api<Node> = Api::all(client.clone());
                    let ready = nodes
                        .list(&Default::default())
                        .await
                        .ok()?
                        .items
                        .iter()
                        .filter(|n| node_ready(n))
                        .count();
                    let accounts: Api<ServiceAccount> = Api::namespaced(client, "default");
                    let default = accounts.get_opt("default").await.ok()?;
                    (ready == wanted && default.is_some()).then_some(())
                }
            },
        )
        .await;
        let accounts: Api<ServiceAccount> = Api::namespaced(client.clone(), AGENT_NAMESPACE);
        let request = json!({
            "apiVersion": "authentication.k8s.io/v1",
            "kind": "TokenRequest",
            "spec": {"expirationSeconds": 86400},
        });
        let answer: Value = accounts
            .create_subresource("token", AGENT_ACCOUNT, &PostParams::default(), &request)
            .await
            .expect("a token of the agent's ServiceAccount");
        let token = answer["status"]["token"]
            .as_str()
            .expect("token")
            .to_string();
        std::fs::write(
            &self.agent_kubeconfig,
            kubeconfig(
                &self.server,
                &std::fs::read_to_string(self.path("ca.crt")).unwrap(),
                &token,
            ),
        )
        .unwrap();
    }

    /// A client with the admin's rights (for the tests' own setup and checks).
    pub async fn admin(&self) -> kube::Client {
        kube_client(&self.admin_kubeconfig).await
    }

    /// A client as the agent (its ServiceAccount's token).
    pub async fn as_agent(&self) -> kube::Client {
        kube_client(&self.agent_kubeconfig).await
    }

    /// A process's log so far.
    pub fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.path(&format!("{name}.log"))).unwrap_or_default()
    }

    /// The last `lines` lines of a process's log.
    pub fn log_tail(&self, name: &str, lines: usize) -> String {
        let log = self.log(name);
        let all: Vec<&str> = log.lines().collect();
        all[all.len().saturating_sub(lines)..].join("\n")
    }

    /// The API server's audit events of the agent's requests so far (one JSON object
    /// each: verb, requestURI, objectRef, responseStatus).
    pub fn agent_requests(&self) -> Vec<Value> {
        let audit = self
            .audit
            .as_ref()
            .expect("the control plane audits the agent");
        std::fs::read_to_string(audit)
            .unwrap_or_default()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["stage"] == "ResponseComplete")
            .collect()
    }
}

impl Drop for ControlPlane {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.dir.disable_cleanup(true);
            eprintln!(
                "kept the control plane's files and logs: {}",
                self.dir.path().display()
            );
        }
        if !self.owned {
            return;
        }
        let mut children = self.children.lock().unwrap();
        for (_, child) in children.iter_mut().rev() {
            // A paused API server would not die of SIGKILL until continued otherwise.
            // SAFETY: kill(2) on a child of ours.
            unsafe { libc::kill(child.id() as i32, libc::SIGCONT) };
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

const KWOK_ANNOTATION: &str = "kwok.x-k8s.io/node";

fn node_ready(node: &Node) -> bool {
    node.status
        .as_ref()
        .and_then(|s| s.conditions.as_ref())
        .is_some_and(|c| c.iter().any(|c| c.type_ == "Ready" && c.status == "True"))
}

/// A kubeconfig for `server` with a bearer token.
fn kubeconfig(server: &str, ca_pem: &str, token: &str) -> String {
    use base64::Engine;
    let ca = base64::engine::general_purpose::STANDARD.encode(ca_pem);
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: test\n  cluster:\n    server: {server}\n    \
         certificate-authority-data: {ca}\nusers:\n- name: test\n  user:\n    token: {token}\n\
         contexts:\n- name: {CONTEXT}\n  context:\n    cluster: test\n    user: test\n\
         current-context: {CONTEXT}\n"
    )
}

/// A kube-rs client from a kubeconfig file.
pub async fn kube_client(path: &Path) -> kube::Client {
    let kubeconfig = kube::config::Kubeconfig::read_from(path).expect("kubeconfig");
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &Default::default())
        .await
        .expect("kube config");
    kube::Client::try_from(config).expect("kube client")
}

/// Server-side applies `document` as `manager`, through discovery of its kind.
pub async fn apply(
    client: &kube::Client,
    document: &Value,
    manager: &str,
) -> Result<DynamicObject, kube::Error> {
    let api = dynamic_api(client, document).await?;
    let name = document["metadata"]["name"].as_str().expect("a name");
    api.patch(
        name,
        &PatchParams::apply(manager).force(),
        &Patch::Apply(document),
    )
    .await
}

/// The dynamic API of `document`'s kind, in its namespace (or `default`).
pub async fn dynamic_api(
    client: &kube::Client,
    document: &Value,
) -> Result<Api<DynamicObject>, kube::Error> {
    let api_version = document["apiVersion"].as_str().expect("apiVersion");
    let kind = document["kind"].as_str().expect("kind");
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let gvk = GroupVersionKind::gvk(group, version, kind);
    let (resource, capabilities) = kube::discovery::pinned_kind(client, &gvk).await?;
    Ok(match capabilities.scope {
        kube::discovery::Scope::Cluster => Api::all_with(client.clone(), &resource),
        kube::discovery::Scope::Namespaced => Api::namespaced_with(
            client.clone(),
            document["metadata"]["namespace"]
                .as_str()
                .unwrap_or("default"),
            &resource,
        ),
    })
}

/// The dynamic API of a kind (group/version/kind), in `namespace` or cluster-wide.
pub fn api_of(
    client: &kube::Client,
    api_version: &str,
    kind: &str,
    plural: &str,
    namespace: Option<&str>,
) -> Api<DynamicObject> {
    let (group, version) = api_version.rsplit_once('/').unwrap_or(("", api_version));
    let resource =
        ApiResource::from_gvk_with_plural(&GroupVersionKind::gvk(group, version, kind), plural);
    match namespace {
        Some(ns) => Api::namespaced_with(client.clone(), ns, &resource),
        None => Api::all_with(client.clone(), &resource),
    }
}

/// The documents of `deploy/{file}`.
pub fn deploy_documents(file: &str) -> Vec<Value> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../deploy")
        .join(file);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    serde_yaml_ng::Deserializer::from_str(&text)
        .map(|document| {
            serde::Deserialize::deserialize(document).unwrap_or_else(|e| panic!("{file}: {e}"))
        })
        .collect()
}

fn command_output(program: &Path, args: &[&str]) -> String {
    let output = Command::new(program)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}", program.display()));
    String::from_utf8_lossy(&output.stdout).trim().to_string()
}

fn random_token(len: usize) -> String {
    uuid::Uuid::new_v4()
        .simple()
        .to_string()
        .chars()
        .chain(uuid::Uuid::new_v4().simple().to_string().chars())
        .take(len)
        .collect()
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// Spawns the control plane's processes from one thread that lives as long as the test
/// binary, with `PR_SET_PDEATHSIG`: the kernel kills them when that thread ends (the
/// signal follows the thread that forked, not the process), so a shared control plane
/// never outlives its tests, even one killed by a timeout.
mod keeper {
    use super::*;
    use std::os::unix::process::CommandExt;

    type Job = (Command, mpsc::Sender<std::io::Result<Child>>);

    pub(super) fn spawn(command: Command) -> Child {
        static KEEPER: OnceLock<Mutex<mpsc::Sender<Job>>> = OnceLock::new();
        let sender = KEEPER.get_or_init(|| {
            let (sender, jobs) = mpsc::channel::<Job>();
            std::thread::Builder::new()
                .name("control-plane-keeper".into())
                .spawn(move || {
                    for (mut command, answer) in jobs {
                        // SAFETY: prctl is async-signal-safe; nothing else runs between
                        // fork and exec.
                        unsafe {
                            command.pre_exec(|| {
                                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                                Ok(())
                            });
                        }
                        let _ = answer.send(command.spawn());
                    }
                })
                .expect("keeper thread");
            Mutex::new(sender)
        });
        let (answer, result) = mpsc::channel();
        sender
            .lock()
            .unwrap()
            .send((command, answer))
            .expect("keeper alive");
        result
            .recv()
            .expect("keeper answers")
            .expect("spawn a control plane process")
    }
}
