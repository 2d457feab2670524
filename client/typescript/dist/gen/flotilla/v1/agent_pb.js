// AgentService: the session between the server and a cluster agent. The agent dials
// out from its cluster; the server sends desired state, the agent reports results,
// resource bundle states and heartbeats.
import { fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_flotilla_v1_action } from "./action_pb.js";
import { file_flotilla_v1_common } from "./common_pb.js";
import { file_flotilla_v1_simulator } from "./simulator_pb.js";
import { file_google_protobuf_struct, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/agent.proto.
 */
export const file_flotilla_v1_agent = /*@__PURE__*/ fileDesc("ChdmbG90aWxsYS92MS9hZ2VudC5wcm90bxILZmxvdGlsbGEudjEi2gEKEE9ic2VydmVkUmVzb3VyY2USKgoDZ3ZrGAEgASgLMh0uZmxvdGlsbGEudjEuR3JvdXBWZXJzaW9uS2luZBIRCgluYW1lc3BhY2UYAiABKAkSDAoEbmFtZRgDIAEoCRIpCghtZXRhZGF0YRgEIAEoCzIXLmdvb2dsZS5wcm90b2J1Zi5TdHJ1Y3QSJQoEc3BlYxgFIAEoCzIXLmdvb2dsZS5wcm90b2J1Zi5TdHJ1Y3QSJwoGc3RhdHVzGAYgASgLMhcuZ29vZ2xlLnByb3RvYnVmLlN0cnVjdCKhAQoTUmVzb3VyY2VCdW5kbGVTdGF0ZRIVCg1kZXBsb3ltZW50X2lkGAEgASgJEjAKCXJlc291cmNlcxgCIAMoCzIdLmZsb3RpbGxhLnYxLk9ic2VydmVkUmVzb3VyY2USMAoMb2JzZXJ2ZV90aW1lGAMgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIPCgdwYXJ0aWFsGAQgASgIIrgBCgpBZ2VudEhlbGxvEg8KB2NsdXN0ZXIYASABKAkSFQoNYWdlbnRfdmVyc2lvbhgCIAEoCRIWCg5kZXBsb3ltZW50X2lkcxgDIAMoCRIXCg9tb25pdG9yZWRfa2luZHMYBCADKAkSDQoFbm9kZXMYBSADKAkSGAoQZXhlY3V0ZXNfYWN0aW9ucxgGIAEoCBIPCgdiYWNrZW5kGAcgASgJEhcKD2NsdXN0ZXJfdmVyc2lvbhgIIAEoCSJVCgtBY3Rpb25DbGFpbRIMCgRuYW1lGAEgASgJEg8KB2dyYW50ZWQYAiABKAgSJwoFc3RhdGUYAyABKA4yGC5mbG90aWxsYS52MS5BY3Rpb25TdGF0ZSJGCg5SZXNvdXJjZVJlc3VsdBIUCgxvcGVyYXRpb25faWQYASABKAMSDwoHc3VjY2VzcxgCIAEoCBINCgVlcnJvchgDIAEoCSI1CglIZWFydGJlYXQSKAoEdGltZRgBIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAinAIKDkNvbm5lY3RSZXF1ZXN0EigKBWhlbGxvGAEgASgLMhcuZmxvdGlsbGEudjEuQWdlbnRIZWxsb0gAEi0KBnJlc3VsdBgCIAEoCzIbLmZsb3RpbGxhLnYxLlJlc291cmNlUmVzdWx0SAASOAoMYnVuZGxlX3N0YXRlGAMgASgLMiAuZmxvdGlsbGEudjEuUmVzb3VyY2VCdW5kbGVTdGF0ZUgAEisKCWhlYXJ0YmVhdBgEIAEoCzIWLmZsb3RpbGxhLnYxLkhlYXJ0YmVhdEgAEj8KDWFjdGlvbl9zdGF0dXMYBSABKAsyJi5mbG90aWxsYS52MS5VcGRhdGVBY3Rpb25TdGF0dXNSZXF1ZXN0SABCCQoHbWVzc2FnZSJ7Cg1BcHBseVJlc291cmNlEhQKDG9wZXJhdGlvbl9pZBgBIAEoAxIVCg1kZXBsb3ltZW50X2lkGAIgASgJEikKCG1hbmlmZXN0GAMgASgLMhcuZ29vZ2xlLnByb3RvYnVmLlN0cnVjdBISCgpnZW5lcmF0aW9uGAQgASgDInMKDkRlbGV0ZVJlc291cmNlEhQKDG9wZXJhdGlvbl9pZBgBIAEoAxIqCgNndmsYAiABKAsyHS5mbG90aWxsYS52MS5Hcm91cFZlcnNpb25LaW5kEhEKCW5hbWVzcGFjZRgDIAEoCRIMCgRuYW1lGAQgASgJIl4KD1Nlc3Npb25BY2NlcHRlZBIhChloZWFydGJlYXRfaW50ZXJ2YWxfbWlsbGlzGAEgASgDEhcKD3BhcnRpYWxfYnVuZGxlcxgCIAEoCBIPCgdyZXBsaWNhGAMgASgJIhsKCFJlZGlyZWN0Eg8KB2FkZHJlc3MYASABKAkivwMKD0Nvbm5lY3RSZXNwb25zZRIwCghhY2NlcHRlZBgBIAEoCzIcLmZsb3RpbGxhLnYxLlNlc3Npb25BY2NlcHRlZEgAEisKBWFwcGx5GAIgASgLMhouZmxvdGlsbGEudjEuQXBwbHlSZXNvdXJjZUgAEi0KBmRlbGV0ZRgDIAEoCzIbLmZsb3RpbGxhLnYxLkRlbGV0ZVJlc291cmNlSAASKwoJaGVhcnRiZWF0GAQgASgLMhYuZmxvdGlsbGEudjEuSGVhcnRiZWF0SAASKQoIcmVkaXJlY3QYBSABKAsyFS5mbG90aWxsYS52MS5SZWRpcmVjdEgAEiUKBmFjdGlvbhgGIAEoCzITLmZsb3RpbGxhLnYxLkFjdGlvbkgAEjQKC3NpbV9jb21tYW5kGAcgASgLMh0uZmxvdGlsbGEudjEuU2ltdWxhdG9yQ29tbWFuZEgAEjAKDGFjdGlvbl9jbGFpbRgIIAEoCzIYLmZsb3RpbGxhLnYxLkFjdGlvbkNsYWltSAASLAoGcmVwb3J0GAkgASgLMhouZmxvdGlsbGEudjEuUmVwb3J0UmVxdWVzdEgAQgkKB21lc3NhZ2UiJwoNUmVwb3J0UmVxdWVzdBIWCg5kZXBsb3ltZW50X2lkcxgBIAMoCSKRAgoQU2ltdWxhdG9yQ29tbWFuZBI3CgxmYWlsX2FwcGxpZXMYASABKAsyHy5mbG90aWxsYS52MS5GYWlsQXBwbGllc1JlcXVlc3RIABIzCgpkZWxldGVfcG9kGAIgASgLMh0uZmxvdGlsbGEudjEuRGVsZXRlUG9kUmVxdWVzdEgAEksKF3NldF9wb2RfcmVhZGluZXNzX2RlbGF5GAMgASgLMiguZmxvdGlsbGEudjEuU2V0UG9kUmVhZGluZXNzRGVsYXlSZXF1ZXN0SAASNwoMZmFpbF9hY3Rpb25zGAQgASgLMh8uZmxvdGlsbGEudjEuRmFpbEFjdGlvbnNSZXF1ZXN0SABCCQoHY29tbWFuZDJYCgxBZ2VudFNlcnZpY2USSAoHQ29ubmVjdBIbLmZsb3RpbGxhLnYxLkNvbm5lY3RSZXF1ZXN0GhwuZmxvdGlsbGEudjEuQ29ubmVjdFJlc3BvbnNlKAEwAWIGcHJvdG8z", [file_flotilla_v1_action, file_flotilla_v1_common, file_flotilla_v1_simulator, file_google_protobuf_struct, file_google_protobuf_timestamp]);
/**
 * Describes the message flotilla.v1.ObservedResource.
 * Use `create(ObservedResourceSchema)` to create a new message.
 */
export const ObservedResourceSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 0);
/**
 * Describes the message flotilla.v1.ResourceBundleState.
 * Use `create(ResourceBundleStateSchema)` to create a new message.
 */
export const ResourceBundleStateSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 1);
/**
 * Describes the message flotilla.v1.AgentHello.
 * Use `create(AgentHelloSchema)` to create a new message.
 */
export const AgentHelloSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 2);
/**
 * Describes the message flotilla.v1.ActionClaim.
 * Use `create(ActionClaimSchema)` to create a new message.
 */
export const ActionClaimSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 3);
/**
 * Describes the message flotilla.v1.ResourceResult.
 * Use `create(ResourceResultSchema)` to create a new message.
 */
export const ResourceResultSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 4);
/**
 * Describes the message flotilla.v1.Heartbeat.
 * Use `create(HeartbeatSchema)` to create a new message.
 */
export const HeartbeatSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 5);
/**
 * Describes the message flotilla.v1.ConnectRequest.
 * Use `create(ConnectRequestSchema)` to create a new message.
 */
export const ConnectRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 6);
/**
 * Describes the message flotilla.v1.ApplyResource.
 * Use `create(ApplyResourceSchema)` to create a new message.
 */
export const ApplyResourceSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 7);
/**
 * Describes the message flotilla.v1.DeleteResource.
 * Use `create(DeleteResourceSchema)` to create a new message.
 */
export const DeleteResourceSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 8);
/**
 * Describes the message flotilla.v1.SessionAccepted.
 * Use `create(SessionAcceptedSchema)` to create a new message.
 */
export const SessionAcceptedSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 9);
/**
 * Describes the message flotilla.v1.Redirect.
 * Use `create(RedirectSchema)` to create a new message.
 */
export const RedirectSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 10);
/**
 * Describes the message flotilla.v1.ConnectResponse.
 * Use `create(ConnectResponseSchema)` to create a new message.
 */
export const ConnectResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 11);
/**
 * Describes the message flotilla.v1.ReportRequest.
 * Use `create(ReportRequestSchema)` to create a new message.
 */
export const ReportRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 12);
/**
 * Describes the message flotilla.v1.SimulatorCommand.
 * Use `create(SimulatorCommandSchema)` to create a new message.
 */
export const SimulatorCommandSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_agent, 13);
/**
 * Serves cluster agents.
 *
 * @generated from service flotilla.v1.AgentService
 */
export const AgentService = /*@__PURE__*/ serviceDesc(file_flotilla_v1_agent, 0);
