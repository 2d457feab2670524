"""Generated messages and gRPC stubs of the proto package `flotilla.v1` (see
scripts/gen-clients.sh; do not edit the `*_pb2*` modules by hand)."""
