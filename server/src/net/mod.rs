//! The connections the gRPC server serves: TCP (plaintext, or TLS when configured) and
//! in-process pipes for the embedded sim agents, which so speak gRPC to the server
//! without a port, a certificate or a plaintext side door.
//!
//! TLS handshakes run on their own tasks, so a slow or hostile client never holds up
//! the accept loop. On a TLS port, a client that starts in plaintext (no TLS record
//! first) gets a gRPC answer saying so, instead of a torn connection.

pub mod console;
pub mod middleware;
pub mod tls;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, DuplexStream, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::mpsc;
use tokio_rustls::server::TlsStream;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::transport::server::Connected;
use tracing::{debug, info, warn};

use self::tls::TlsState;

/// How long a client has to finish its TLS handshake.
const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);
/// The buffer of an in-process pipe, each way.
const PIPE_BYTES: usize = 1 << 20;
/// The first byte of a TLS handshake record.
const TLS_HANDSHAKE_RECORD: u8 = 0x16;

/// One served connection.
pub enum Conn {
    Plain(TcpStream),
    /// A TLS connection; the flag says whether the server requires client
    /// certificates (mTLS).
    Tls(Box<TlsStream<TcpStream>>, bool),
    /// An in-process pipe (embedded agents).
    Local(DuplexStream),
}

/// What a request knows of its connection (in the request's extensions).
#[derive(Debug, Clone)]
pub struct Peer {
    /// The client's address; None for in-process connections.
    pub address: Option<SocketAddr>,
    /// The server requires client certificates (mTLS) and this client sent none. The
    /// handshake lets it through so that it can be told so in gRPC terms (the auth
    /// layer refuses its calls, but health and reflection); a certificate that is
    /// sent is verified in the handshake, which fails on a bad one.
    pub missing_client_certificate: bool,
}

impl Connected for Conn {
    type ConnectInfo = Peer;

    fn connect_info(&self) -> Peer {
        match self {
            Conn::Plain(stream) => Peer {
                address: stream.peer_addr().ok(),
                missing_client_certificate: false,
            },
            Conn::Tls(stream, mtls) => {
                let (tcp, session) = stream.get_ref();
                Peer {
                    address: tcp.peer_addr().ok(),
                    missing_client_certificate: *mtls
                        && session.peer_certificates().is_none_or(<[_]>::is_empty),
                }
            }
            Conn::Local(_) => Peer {
                address: None,
                missing_client_certificate: false,
            },
        }
    }
}

impl AsyncRead for Conn {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_read(cx, buf),
            Conn::Tls(s, _) => Pin::new(s.as_mut()).poll_read(cx, buf),
            Conn::Local(s) => Pin::new(s).poll_read(cx, buf),
        }
    }
}

impl AsyncWrite for Conn {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write(cx, buf),
            Conn::Tls(s, _) => Pin::new(s.as_mut()).poll_write(cx, buf),
            Conn::Local(s) => Pin::new(s).poll_write(cx, buf),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_write_vectored(cx, bufs),
            Conn::Tls(s, _) => Pin::new(s.as_mut()).poll_write_vectored(cx, bufs),
            Conn::Local(s) => Pin::new(s).poll_write_vectored(cx, bufs),
        }
    }

    fn is_write_vectored(&self) -> bool {
        match self {
            Conn::Plain(s) => s.is_write_vectored(),
            Conn::Tls(s, _) => s.is_write_vectored(),
            Conn::Local(s) => s.is_write_vectored(),
        }
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_flush(cx),
            Conn::Tls(s, _) => Pin::new(s.as_mut()).poll_flush(cx),
            Conn::Local(s) => Pin::new(s).poll_flush(cx),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match self.get_mut() {
            Conn::Plain(s) => Pin::new(s).poll_shutdown(cx),
            Conn::Tls(s, _) => Pin::new(s.as_mut()).poll_shutdown(cx),
            Conn::Local(s) => Pin::new(s).poll_shutdown(cx),
        }
    }
}

/// Opens in-process connections to the server.
#[derive(Clone)]
pub struct LocalConnector {
    sender: mpsc::Sender<io::Result<Conn>>,
}

impl LocalConnector {
    /// A new pipe whose server end the gRPC server serves.
    pub async fn connect(&self) -> io::Result<DuplexStream> {
        let (client, server) = tokio::io::duplex(PIPE_BYTES);
        self.sender
            .send(Ok(Conn::Local(server)))
            .await
            .map_err(|_| io::Error::new(io::ErrorKind::ConnectionRefused, "the server stopped"))?;
        Ok(client)
    }

    /// A gRPC channel over in-process pipes (a new pipe whenever it reconnects).
    pub async fn channel(&self) -> Result<tonic::transport::Channel, tonic::transport::Error> {
        let local = self.clone();
        tonic::transport::Endpoint::from_static("http://in-process.flotilla.invalid")
            .connect_with_connector(tower::service_fn(move |_| {
                let local = local.clone();
                async move { local.connect().await.map(hyper_util::rt::TokioIo::new) }
            }))
            .await
    }
}

/// The stream of connections to serve, and the connector of in-process ones.
pub struct Incoming {
    pub connections: ReceiverStream<io::Result<Conn>>,
    pub local: LocalConnector,
    pub address: SocketAddr,
}

/// Accepts TCP connections on `listener` (TLS when `tls` is set) until `shutdown`.
pub fn incoming(
    listener: TcpListener,
    tls: Option<Arc<TlsState>>,
    shutdown: CancellationToken,
) -> io::Result<Incoming> {
    let address = listener.local_addr()?;
    let (sender, receiver) = mpsc::channel(128);
    let local = LocalConnector {
        sender: sender.clone(),
    };
    tokio::spawn(async move {
        loop {
            let (stream, peer) = tokio::select! {
                () = shutdown.cancelled() => return,
                accepted = listener.accept() => match accepted {
                    Ok(accepted) => accepted,
                    Err(error) => {
                        // EMFILE and the like: back off instead of spinning.
                        warn!(%error, "cannot accept a connection");
                        tokio::time::sleep(Duration::from_millis(50)).await;
                        continue;
                    }
                },
            };
            // Without it, small responses wait for delayed ACKs (tens of ms).
            let _ = stream.set_nodelay(true);
            match &tls {
                None => {
                    if sender.send(Ok(Conn::Plain(stream))).await.is_err() {
                        return;
                    }
                }
                Some(tls) => {
                    tokio::spawn(handshake(tls.clone(), stream, peer, sender.clone()));
                }
            }
        }
    });
    Ok(Incoming {
        connections: ReceiverStream::new(receiver),
        local,
        address,
    })
}

async fn handshake(
    tls: Arc<TlsState>,
    stream: TcpStream,
    peer: SocketAddr,
    sender: mpsc::Sender<io::Result<Conn>>,
) {
    let mut first = [0u8; 1];
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, stream.peek(&mut first)).await {
        Ok(Ok(1)) if first[0] != TLS_HANDSHAKE_RECORD => {
            info!(%peer, "plaintext client on the TLS port; telling it to use TLS");
            refuse_plaintext(stream).await;
            return;
        }
        Ok(Ok(1)) => {}
        _ => return,
    }
    match tokio::time::timeout(HANDSHAKE_TIMEOUT, tls.acceptor().accept(stream)).await {
        Ok(Ok(stream)) => {
            let mtls = tls.requires_client_certificates();
            let _ = sender.send(Ok(Conn::Tls(Box::new(stream), mtls))).await;
        }
        Ok(Err(error)) => info!(%peer, %error, "TLS handshake failed"),
        Err(_) => debug!(%peer, "TLS handshake timed out"),
    }
}

/// Answers every request of a plaintext HTTP/2 client with UNAVAILABLE and a message
/// that says to use TLS.
async fn refuse_plaintext(stream: TcpStream) {
    let service = hyper::service::service_fn(|_request| async {
        let status = tonic::Status::unavailable(
            "this server accepts TLS connections only: connect with https:// and the server's \
             CA (grpcurl: -cacert instead of -plaintext)",
        );
        Ok::<_, std::convert::Infallible>(status.into_http::<http_body_util::Empty<bytes::Bytes>>())
    });
    let _ = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
        .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
        .await;
}
