//! A TCP proxy a test can cut and heal: a database outage as the server sees one
//! (connections reset, new ones refused), without stopping the PostgreSQL server the
//! other tests share.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

pub struct TcpProxy {
    port: u16,
    cut: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: JoinHandle<()>,
}

impl TcpProxy {
    /// Listens on a free loopback port and forwards every connection to `upstream`.
    pub async fn start(upstream: String) -> TcpProxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("proxy port");
        let port = listener.local_addr().expect("proxy address").port();
        let cut = Arc::new(AtomicBool::new(false));
        let links: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let accept = tokio::spawn({
            let (cut, links) = (cut.clone(), links.clone());
            async move {
                while let Ok((mut inbound, _)) = listener.accept().await {
                    if cut.load(Ordering::SeqCst) {
                        drop(inbound);
                        continue;
                    }
                    let upstream = upstream.clone();
                    let link = tokio::spawn(async move {
                        if let Ok(mut outbound) = TcpStream::connect(&upstream).await {
                            let _ =
                                tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                        }
                    });
                    let mut links = links.lock().expect("links");
                    links.retain(|l| !l.is_finished());
                    links.push(link);
                }
            }
        });
        TcpProxy {
            port,
            cut,
            links,
            accept,
        }
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Drops every open connection and refuses new ones until `heal`.
    pub fn cut(&self) {
        self.cut.store(true, Ordering::SeqCst);
        for link in self.links.lock().expect("links").drain(..) {
            link.abort();
        }
    }

    pub fn heal(&self) {
        self.cut.store(false, Ordering::SeqCst);
    }
}

impl Drop for TcpProxy {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}

/// A TCP load balancer over a set of backends, as a Kubernetes Service or a layer-4
/// balancer in front of replicas: each new connection goes to the next backend in turn
/// that accepts it (one that refuses connections is skipped), and stays there.
pub struct TcpBalancer {
    port: u16,
    accept: JoinHandle<()>,
}

impl TcpBalancer {
    /// Listens on a free loopback port and spreads connections over `backends`
    /// (`host:port`).
    pub async fn start(backends: Vec<String>) -> TcpBalancer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("balancer port");
        let port = listener.local_addr().expect("balancer address").port();
        let accept = tokio::spawn(async move {
            let mut next = 0usize;
            while let Ok((mut inbound, _)) = listener.accept().await {
                let start = next;
                next = next.wrapping_add(1);
                let backends = backends.clone();
                tokio::spawn(async move {
                    for i in 0..backends.len() {
                        let backend = &backends[(start + i) % backends.len()];
                        if let Ok(mut outbound) = TcpStream::connect(backend).await {
                            let _ =
                                tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
                            return;
                        }
                    }
                });
            }
        });
        TcpBalancer { port, accept }
    }

    /// The balancer's URL (plain HTTP/2).
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }
}

impl Drop for TcpBalancer {
    fn drop(&mut self) {
        self.accept.abort();
    }
}
