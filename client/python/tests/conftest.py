"""Starts a real flotilla-server process (SQLite, embedded sim clusters) per test."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Iterator, Optional

import pytest

from flotilla import Client, FlotillaError
from flotilla.v1 import lifecycle_pb2 as lc

REPO = Path(__file__).resolve().parents[3]


def server_binary() -> str:
    path = os.environ.get("FLOTILLA_SERVER_BIN") or str(REPO / "target" / "debug" / "flotilla-server")
    if not os.path.exists(path):
        pytest.fail(f"{path} is missing: build it first (cargo build -p flotilla-server)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A flotilla-server on a fresh SQLite file; restartable on the same port."""

    def __init__(self, data_dir: str, args: tuple[str, ...] = ("--sim",)) -> None:
        self.data_dir = data_dir
        self.args = args
        self.address = f"127.0.0.1:{free_port()}"
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.token = ""

    def start(self) -> None:
        log = open(os.path.join(self.data_dir, "server.log"), "ab")
        env = dict(os.environ)
        env["FLOTILLA_DATABASE_URL"] = f"sqlite://{self.data_dir}/flotilla.db?mode=rwc"
        env.setdefault("RUST_LOG", "info")
        self.process = subprocess.Popen(
            [server_binary(), "--listen", self.address, "--data-dir", self.data_dir, *self.args],
            stdout=subprocess.DEVNULL,
            stderr=log,
            env=env,
        )
        log.close()
        deadline = time.monotonic() + 30
        token_file = os.path.join(self.data_dir, "admin.token")
        while True:
            if self.process.poll() is not None:
                pytest.fail(f"flotilla-server exited {self.process.returncode}:\n{self.log()}")
            if os.path.exists(token_file):
                self.token = open(token_file).read().strip()
                try:
                    with Client(self.address, token=self.token, timeout=2) as client:
                        client.lifecycle.ListProjects(lc.ListProjectsRequest())
                    return
                except FlotillaError:
                    pass
            if time.monotonic() > deadline:
                pytest.fail(f"flotilla-server not healthy:\n{self.log()}")
            time.sleep(0.05)

    def stop(self, sig: int = signal.SIGTERM) -> None:
        if self.process is not None:
            self.process.send_signal(sig)
            self.process.wait(timeout=30)
            self.process = None

    def restart(self, sig: int = signal.SIGTERM) -> None:
        self.stop(sig)
        self.start()

    def log(self) -> str:
        return Path(self.data_dir, "server.log").read_text(errors="replace")

    def client(self) -> Client:
        return Client(self.address, token=self.token)


@pytest.fixture
def server() -> Iterator[Server]:
    yield from _server(("--sim",))


@pytest.fixture
def demo_server() -> Iterator[Server]:
    """A server started with --demo: the README's demo group, ready to instantiate."""
    yield from _server(("--demo",))


def _server(args: tuple[str, ...]) -> Iterator[Server]:
    with tempfile.TemporaryDirectory(prefix="flotilla-py-") as data_dir:
        server = Server(data_dir, args)
        server.start()
        try:
            yield server
        finally:
            if server.process is not None:
                server.process.kill()
                server.process.wait()
