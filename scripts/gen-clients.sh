#!/usr/bin/env bash
# Regenerates the Python, TypeScript and Go clients from proto/. The generated code is
# committed (with the compiled TypeScript package), so installing a client needs no
# code generator or compiler. CI runs this script and fails when the committed code
# differs from what it produces.
#
# Tools come from the registries, at the versions pinned in
# client/python/requirements-dev.txt (grpcio-tools, mypy-protobuf) and
# client/typescript/package-lock.json (@bufbuild/buf, @bufbuild/protoc-gen-es) and
# client/go/tools/go.mod (protoc-gen-go, protoc-gen-go-grpc, built here from the Go module
# proxy); run `scripts/gen-clients.sh --install` to install the first two first.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ "${1:-}" = "--install" ]; then
  python3 -m pip install --quiet --disable-pip-version-check -r client/python/requirements-dev.txt
  (cd client/typescript && npm ci --silent --no-audit --no-fund)
fi

# Python: messages (grpcio-tools' protoc), gRPC stubs, and typed stubs (mypy-protobuf)
# for both. Only flotilla/v1: google.rpc comes from googleapis-common-protos.
py_out=client/python/flotilla/v1
rm -f "$py_out"/*_pb2*.py "$py_out"/*_pb2*.pyi
well_known=$(python3 -c 'import grpc_tools, os; print(os.path.join(os.path.dirname(grpc_tools.__file__), "_proto"))')
python3 -m grpc_tools.protoc -I proto -I "$well_known" \
  --python_out=client/python --grpc_python_out=client/python \
  --mypy_out=client/python --mypy_grpc_out=client/python \
  proto/flotilla/v1/*.proto

# TypeScript: messages and service descriptors (protobuf-es), google.rpc included for
# the error details. Local plugin only: no remote plugins, no network.
ts_out=client/typescript/src/gen
rm -rf "$ts_out"
# The module config is given inline: the repository's buf.yaml excludes the vendored
# google/rpc protos from lint, but the client needs their messages.
(cd client/typescript && npx --no-install buf generate ../../proto --template buf.gen.yaml --config '{"version": "v1"}')
# The compiled package (dist/) is committed too (rebuilt below, after names.ts):
# `npm install ./client/typescript` links the folder as it is, without its dev
# dependencies to build it.

# Go: messages and gRPC stubs from the plugins pinned in client/go/tools/go.mod (built
# into a cache outside the checkout; Go's build cache makes a rebuild cheap), google.rpc
# and google.api from genproto; then a paging iterator per List method (from the stubs'
# descriptors).
go_tools="${XDG_CACHE_HOME:-$HOME/.cache}/flotilla/go-tools"
(cd client/go/tools && go build -o "$go_tools/" google.golang.org/protobuf/cmd/protoc-gen-go google.golang.org/grpc/cmd/protoc-gen-go-grpc)
rm -rf client/go/gen
(cd client/go && PATH="$go_tools:$PATH" ../typescript/node_modules/.bin/buf generate ../../proto --template buf.gen.yaml --path ../../proto/flotilla/v1)
(cd client/go && go run ./internal/genpages > pages_gen.go.new && mv pages_gen.go.new pages_gen.go)

# The name builders of the clients, from the kinds' resource declarations in proto/
# (flotilla-api's build derives them; the binary prints them). Built in the cargo
# profile FLOTILLA_GEN_PROFILE names (default dev), with the whole workspace's features:
# the suite builds it in its own profile, so its build of the workspace reuses every
# crate this one compiled (`-p flotilla-api` alone would resolve other features).
profile=${FLOTILLA_GEN_PROFILE:-dev}
cargo build --quiet --profile "$profile" --workspace --bin flotilla-gen-names
gen_names="target/$([ "$profile" = dev ] && echo debug || echo "$profile")/flotilla-gen-names"
"$gen_names" python > client/python/flotilla/names.py
"$gen_names" typescript > client/typescript/src/names.ts
"$gen_names" go > client/go/names/names.go
# The compiled package (dist/) is rebuilt from the sources above.
(cd client/typescript && rm -rf dist && npx --no-install tsc -p tsconfig.json)

echo "generated $(ls "$py_out"/*.py | wc -l) Python modules, $(find "$ts_out" -name '*.ts' | wc -l) TypeScript files and $(find client/go/gen -name '*.go' | wc -l) Go files"
