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

# Two builds need no test to wait for them: clippy's (its own target directory: a check
# build shares nothing with the test build) and the bench's optimised one. They run in
# the background at the lowest CPU and I/O priority, so they take the cores the test
# builds leave idle at their serial steps and the tests leave idle while they wait on
# servers, agents and timers; the tests keep priority. docs/decisions/
# 2026-12-03-one-suite-three-builds-overlapped.md has the figures.
suite_logs=target/suite
mkdir -p "$suite_logs"
low=(nice -n 19)
if ionice -c 3 true 2>/dev/null; then low+=(ionice -c 3); fi
set -m # the background job gets a process group of its own, which the trap below ends
(
  started=$SECONDS
  CARGO_TARGET_DIR=target/clippy "${low[@]}" cargo clippy --workspace --all-targets -- -D warnings
  echo "background: lints passed ($((SECONDS - started)) s)"
  started=$SECONDS
  # The bench starts the server and agent binaries next to it, so all three are built, in
  # the `ci` profile (optimised, without the release's fat LTO: Cargo.toml says why).
  "${low[@]}" cargo build --profile ci -p flotilla-server -p flotilla-tests \
    --bin flotilla-server --bin flotilla-agent --bin flotilla-bench
  echo "background: optimised build (ci profile) done ($((SECONDS - started)) s)"
) > "$suite_logs/background.log" 2>&1 &
background=$!
set +m
# Whatever ends the script early takes the background builds with it.
trap 'kill -- "-$background" 2>/dev/null || true' EXIT

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
step "formatting"

cargo test --workspace --no-run
step "test build"
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
# The background builds: their outcome, and their log when they failed.
if ! wait "$background"; then
  tail -n 60 "$suite_logs/background.log" >&2
  echo "test.sh: the background lints or optimised build failed (log: $suite_logs/background.log)" >&2
  exit 1
fi
trap - EXIT
grep '^background:' "$suite_logs/background.log"
step "waited for the lints and the optimised build"
# DESIGN §14's targets, scaled down: fails when a scaled-down check fails (alone on the
# machine: nothing runs beside it).
target/ci/flotilla-bench --quick
step "flotilla-bench --quick"
