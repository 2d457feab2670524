//! A `flotilla-server` run inside the test process: the same `server::serve` the binary
//! runs (real store, services, auth and background tasks), on its own runtime and
//! thread, reached through in-process pipes. For suites that need no process of their
//! own (no kill, no signal, no restart into another binary): it saves each test the
//! exec and the health polling, and a debugger or a backtrace sees the server's frames.

use std::io::Write;
use std::sync::{Arc, Mutex, mpsc};
use std::thread::JoinHandle;
use std::time::Duration;

use clap::Parser;
use flotilla_server::config::{Config, Flags};
use flotilla_server::net::LocalConnector;
use tokio_util::sync::CancellationToken;

/// How long a stopping server's runtime waits for its blocking tasks.
const RUNTIME_SHUTDOWN: Duration = Duration::from_secs(5);

/// One in-process server: its thread, its shutdown token and its pipe connector.
pub struct InProcess {
    shutdown: CancellationToken,
    thread: Option<JoinHandle<Result<(), String>>>,
    pub local: LocalConnector,
}

/// Where the server's log lines go: the same file a server process writes to.
#[derive(Clone)]
struct LogFile(Arc<Mutex<std::fs::File>>);

impl Write for LogFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().expect("log file").write(buf)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.lock().expect("log file").flush()
    }
}

impl InProcess {
    /// Starts a server with the flags `args` (as the binary takes them), logging to
    /// `log` with the filter `log_filter`. Returns once it serves, or the error it
    /// stopped with (e.g. "cannot listen on …: Address already in use").
    pub fn start(
        args: Vec<String>,
        log: std::fs::File,
        log_filter: &str,
    ) -> Result<InProcess, String> {
        let flags =
            Flags::try_parse_from(std::iter::once("flotilla-server".to_string()).chain(args))
                .map_err(|e| e.to_string())?;
        let config = Config::load(flags).map_err(|e| format!("{e:#}"))?;
        let writer = LogFile(Arc::new(Mutex::new(log)));
        let dispatch = tracing::Dispatch::new(
            tracing_subscriber::fmt()
                .with_env_filter(tracing_subscriber::EnvFilter::new(log_filter))
                .with_writer(move || writer.clone())
                .with_ansi(false)
                .finish(),
        );
        let shutdown = CancellationToken::new();
        let (ready, listening) = mpsc::channel();
        let thread = std::thread::Builder::new()
            .name("in-process-server".into())
            .spawn({
                let shutdown = shutdown.clone();
                move || {
                    // Every thread of this server's runtime logs to its file; the
                    // guards live as long as the threads.
                    let thread_dispatch = dispatch.clone();
                    let runtime = tokio::runtime::Builder::new_multi_thread()
                        .worker_threads(2)
                        .enable_all()
                        .on_thread_start(move || {
                            std::mem::forget(tracing::dispatcher::set_default(&thread_dispatch));
                        })
                        .build()
                        .map_err(|e| e.to_string())?;
                    let _guard = tracing::dispatcher::set_default(&dispatch);
                    let result = runtime
                        .block_on(flotilla_server::server::serve(config, shutdown, |l| {
                            let _ = ready.send(l.local);
                        }))
                        .map_err(|e| format!("{e:#}"));
                    runtime.shutdown_timeout(RUNTIME_SHUTDOWN);
                    result
                }
            })
            .map_err(|e| e.to_string())?;
        match listening.recv() {
            Ok(local) => Ok(InProcess {
                shutdown,
                thread: Some(thread),
                local,
            }),
            // The sender went with the thread: the server stopped before serving.
            Err(_) => Err(match thread.join() {
                Ok(Err(error)) => error,
                Ok(Ok(())) => "the server stopped before serving".into(),
                Err(_) => "the server panicked".into(),
            }),
        }
    }

    /// Stops the server (its shutdown stages, as on SIGTERM) and waits for its thread.
    pub fn stop(&mut self) -> Result<(), String> {
        self.shutdown.cancel();
        match self.thread.take() {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|_| Err("the server panicked".into())),
            None => Ok(()),
        }
    }
}

impl Drop for InProcess {
    fn drop(&mut self) {
        let _ = self.stop();
    }
}
