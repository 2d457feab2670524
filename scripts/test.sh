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

# One compilation is both the lint pass and the test build: clippy's driver compiles the
# workspace's crates with its lints denied (what `cargo clippy --all-targets -- -D
# warnings` checks) and emits the binaries the tests run, so the suite does not type-check
# everything a second time. The same variables stay set for the run, or cargo would build
# again without them. Set from the start: the clients' generator below is one of them.
export RUSTC_WORKSPACE_WRAPPER=clippy-driver
export CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__"

# The generated clients are committed: regenerate and fail if anything changed. The
# names generator is built in the `ci` profile the rest of the suite builds in.
FLOTILLA_GEN_PROFILE=ci ./scripts/gen-clients.sh >/dev/null
generated="client/python/flotilla/v1 client/python/flotilla/names.py client/typescript/src/gen client/typescript/src/names.ts client/typescript/dist client/go/gen client/go/pages_gen.go client/go/names/names.go"
# shellcheck disable=SC2086
if [ -n "$(git status --porcelain -- $generated)" ]; then
  # shellcheck disable=SC2086
  git status --short -- $generated
  echo "the generated clients are stale: run scripts/gen-clients.sh and commit the result" >&2
  exit 1
fi
step "generated clients checked"

# The Go client's modules, its test build and the pinned staticcheck, fetched and built
# in the background (the generated code is in place) while cargo compiles: its long
# single-crate steps leave a core idle. Waited for before the Go client's phase.
go_tools="${XDG_CACHE_HOME:-$HOME/.cache}/flotilla/go-tools"
go_log=$(mktemp)
( (cd client/go/tools && go build -o "$go_tools/" honnef.co/go/tools/cmd/staticcheck) \
  && (cd client/go && go mod download && go test -count=1 -run '^$' ./... >/dev/null) ) >"$go_log" 2>&1 &
go_prep=$!

buf lint
cargo fmt --all -- --check
test -z "$(gofmt -l scripts/kube client/go)"
step "formatting"

# The suite and the bench share one build, in the `ci` profile (Cargo.toml says why):
# optimised enough for the bench's quick checks, with the debug assertions and overflow
# checks the tests rely on, and nothing built twice.
cargo test --profile ci --workspace --all-targets --no-run
step "lints and test build"

cargo test --profile ci --workspace
step "Rust tests"
# The Python and TypeScript clients: type checks, then their suites against real
# flotilla-server processes (the binary cargo test built).
export FLOTILLA_SERVER_BIN="$PWD/target/ci/flotilla-server"
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
# The web console: type checks; its committed build (which the server embeds) must be
# what its sources build to; then its browser tests, headless Chromium against real
# flotilla-server --demo processes (screenshots in a temporary directory unless
# FLOTILLA_CONSOLE_SHOTS names one; docs/console refreshes the README's).
(cd console && npm run --silent check && npx vite build --logLevel warn)
if [ -n "$(git status --porcelain -- console/dist)" ]; then
  git status --short -- console/dist
  echo "the console's build is stale: run npm run build in console/ and commit console/dist" >&2
  exit 1
fi
(cd console && npm test --silent)
step "web console"
# The Go client: vet, staticcheck (pinned in client/go/tools/go.mod), then its suite
# against real flotilla-server processes.
if ! wait "$go_prep"; then cat "$go_log" >&2; exit 1; fi
rm -f "$go_log"
(cd client/go && go vet ./... && "$go_tools/staticcheck" ./... && go test -count=1 ./...)
step "Go client"
# DESIGN §14's targets, scaled down: fails when a scaled-down check fails (alone on the
# machine: nothing runs beside it).
target/ci/flotilla-bench --quick
step "flotilla-bench --quick"
