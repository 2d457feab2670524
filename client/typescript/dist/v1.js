// The generated messages, enums and services of flotilla.v1, in one namespace.
export * from "./gen/flotilla/v1/common_pb.js";
export * from "./gen/flotilla/v1/lifecycle_pb.js";
export * from "./gen/flotilla/v1/status_pb.js";
export * from "./gen/flotilla/v1/action_pb.js";
export * from "./gen/flotilla/v1/container_cluster_pb.js";
export * from "./gen/flotilla/v1/access_pb.js";
export * from "./gen/flotilla/v1/simulator_pb.js";
export * from "./gen/flotilla/v1/agent_pb.js";
