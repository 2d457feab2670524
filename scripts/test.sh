#!/usr/bin/env bash
# Runs the whole test suite: lints, then every test on SQLite and PostgreSQL, the clients'
# suites, the kube backend against real Kubernetes control planes, and flotilla-bench --quick.
# First installs and starts what a bare machine lacks (scripts/setup.sh; each step
# idempotent).
set -euo pipefail
cd "$(dirname "$0")/.."

# What a bare machine lacks (Debian packages, PostgreSQL started with a test role, the
# PyPI and npm tools, the Kubernetes control plane built from pinned Go modules).
# shellcheck source=scripts/setup.sh
source ./scripts/setup.sh
# A clean clone builds everything once: incremental state would only cost disk and time.
if [ -n "${CI:-}" ]; then export CARGO_INCREMENTAL=0; fi
phase=$SECONDS
step() { echo "test.sh: $1 ($((SECONDS - phase)) s)"; phase=$SECONDS; }

# The generated clients are committed: regenerate and fail if anything changed.
./scripts/gen-clients.sh >/dev/null
generated="client/python/flotilla/v1 client/python/flotilla/names.py client/typescript/src/gen client/typescript/src/names.ts client/typescript/dist"
# shellcheck disable=SC2086
if [ -n "$(git status --porcelain -- $generated)" ]; then
  # shellcheck disable=SC2086
  git status --short -- $generated
  echo "the generated clients are stale: run scripts/gen-clients.sh and commit the result" >&2
  exit 1
fi
step "generated clients checked"

buf lint
cargo fmt --all -- --check
test -z "$(gofmt -l scripts/kube)"
cargo clippy --workspace --all-targets -- -D warnings
step "lints"
cargo test --workspace
step "Rust tests"
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
step "Python and TypeScript clients"
# DESIGN §14's targets, scaled down: fails when a scaled-down check fails. The bench
# starts the server and agent binaries next to it, so all three are built first, in
# the `ci` profile (optimised, without the release's fat LTO: Cargo.toml says why).
cargo build --profile ci -p flotilla-server -p flotilla-tests --bin flotilla-server --bin flotilla-agent --bin flotilla-bench
step "optimised build (ci profile)"
target/ci/flotilla-bench --quick
step "flotilla-bench --quick"
