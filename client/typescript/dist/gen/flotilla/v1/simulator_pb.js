// SimulatorService: fault injection into the embedded sim clusters and the sim IaaS.
// Served only when sim backends are enabled.
import { fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_google_protobuf_empty } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/simulator.proto.
 */
export const file_flotilla_v1_simulator = /*@__PURE__*/ fileDesc("ChtmbG90aWxsYS92MS9zaW11bGF0b3IucHJvdG8SC2Zsb3RpbGxhLnYxIkcKI0ZhaWxJbmZyYXN0cnVjdHVyZU9wZXJhdGlvbnNSZXF1ZXN0EhEKCW9wZXJhdGlvbhgBIAEoCRINCgVjb3VudBgCIAEoBSIrChhEaXNjb25uZWN0Q2x1c3RlclJlcXVlc3QSDwoHY2x1c3RlchgBIAEoCSIqChdSZWNvbm5lY3RDbHVzdGVyUmVxdWVzdBIPCgdjbHVzdGVyGAEgASgJIlEKEkZhaWxBcHBsaWVzUmVxdWVzdBIPCgdjbHVzdGVyGAEgASgJEhQKDGtpbmRfcGF0dGVybhgCIAEoCRIUCgxuYW1lX3BhdHRlcm4YAyABKAkiQwoQRGVsZXRlUG9kUmVxdWVzdBIPCgdjbHVzdGVyGAEgASgJEhEKCW5hbWVzcGFjZRgCIAEoCRILCgNwb2QYAyABKAkiRAobU2V0UG9kUmVhZGluZXNzRGVsYXlSZXF1ZXN0Eg8KB2NsdXN0ZXIYASABKAkSFAoMZGVsYXlfbWlsbGlzGAIgASgDIlIKEkZhaWxBY3Rpb25zUmVxdWVzdBIPCgdjbHVzdGVyGAEgASgJEhYKDnRhcmdldF9wYXR0ZXJuGAIgASgJEhMKC2FjdGlvbl9uYW1lGAMgASgJIh4KDVN0b3BWbVJlcXVlc3QSDQoFdm1faWQYASABKAkiIAoPRGVsZXRlVm1SZXF1ZXN0Eg0KBXZtX2lkGAEgASgJIjsKFlNldFpvbmVDYXBhY2l0eVJlcXVlc3QSDwoHem9uZV9pZBgBIAEoCRIQCghjYXBhY2l0eRgCIAEoBSI6ChdTZXRIb3N0UmVhY2hhYmxlUmVxdWVzdBIMCgRob3N0GAEgASgJEhEKCXJlYWNoYWJsZRgCIAEoCDLyBgoQU2ltdWxhdG9yU2VydmljZRJSChFEaXNjb25uZWN0Q2x1c3RlchIlLmZsb3RpbGxhLnYxLkRpc2Nvbm5lY3RDbHVzdGVyUmVxdWVzdBoWLmdvb2dsZS5wcm90b2J1Zi5FbXB0eRJQChBSZWNvbm5lY3RDbHVzdGVyEiQuZmxvdGlsbGEudjEuUmVjb25uZWN0Q2x1c3RlclJlcXVlc3QaFi5nb29nbGUucHJvdG9idWYuRW1wdHkSRgoLRmFpbEFwcGxpZXMSHy5mbG90aWxsYS52MS5GYWlsQXBwbGllc1JlcXVlc3QaFi5nb29nbGUucHJvdG9idWYuRW1wdHkSQgoJRGVsZXRlUG9kEh0uZmxvdGlsbGEudjEuRGVsZXRlUG9kUmVxdWVzdBoWLmdvb2dsZS5wcm90b2J1Zi5FbXB0eRJYChRTZXRQb2RSZWFkaW5lc3NEZWxheRIoLmZsb3RpbGxhLnYxLlNldFBvZFJlYWRpbmVzc0RlbGF5UmVxdWVzdBoWLmdvb2dsZS5wcm90b2J1Zi5FbXB0eRJGCgtGYWlsQWN0aW9ucxIfLmZsb3RpbGxhLnYxLkZhaWxBY3Rpb25zUmVxdWVzdBoWLmdvb2dsZS5wcm90b2J1Zi5FbXB0eRI8CgZTdG9wVm0SGi5mbG90aWxsYS52MS5TdG9wVm1SZXF1ZXN0GhYuZ29vZ2xlLnByb3RvYnVmLkVtcHR5EkAKCERlbGV0ZVZtEhwuZmxvdGlsbGEudjEuRGVsZXRlVm1SZXF1ZXN0GhYuZ29vZ2xlLnByb3RvYnVmLkVtcHR5Ek4KD1NldFpvbmVDYXBhY2l0eRIjLmZsb3RpbGxhLnYxLlNldFpvbmVDYXBhY2l0eVJlcXVlc3QaFi5nb29nbGUucHJvdG9idWYuRW1wdHkSUAoQU2V0SG9zdFJlYWNoYWJsZRIkLmZsb3RpbGxhLnYxLlNldEhvc3RSZWFjaGFibGVSZXF1ZXN0GhYuZ29vZ2xlLnByb3RvYnVmLkVtcHR5EmgKHEZhaWxJbmZyYXN0cnVjdHVyZU9wZXJhdGlvbnMSMC5mbG90aWxsYS52MS5GYWlsSW5mcmFzdHJ1Y3R1cmVPcGVyYXRpb25zUmVxdWVzdBoWLmdvb2dsZS5wcm90b2J1Zi5FbXB0eWIGcHJvdG8z", [file_google_protobuf_empty]);
/**
 * Describes the message flotilla.v1.FailInfrastructureOperationsRequest.
 * Use `create(FailInfrastructureOperationsRequestSchema)` to create a new message.
 */
export const FailInfrastructureOperationsRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 0);
/**
 * Describes the message flotilla.v1.DisconnectClusterRequest.
 * Use `create(DisconnectClusterRequestSchema)` to create a new message.
 */
export const DisconnectClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 1);
/**
 * Describes the message flotilla.v1.ReconnectClusterRequest.
 * Use `create(ReconnectClusterRequestSchema)` to create a new message.
 */
export const ReconnectClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 2);
/**
 * Describes the message flotilla.v1.FailAppliesRequest.
 * Use `create(FailAppliesRequestSchema)` to create a new message.
 */
export const FailAppliesRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 3);
/**
 * Describes the message flotilla.v1.DeletePodRequest.
 * Use `create(DeletePodRequestSchema)` to create a new message.
 */
export const DeletePodRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 4);
/**
 * Describes the message flotilla.v1.SetPodReadinessDelayRequest.
 * Use `create(SetPodReadinessDelayRequestSchema)` to create a new message.
 */
export const SetPodReadinessDelayRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 5);
/**
 * Describes the message flotilla.v1.FailActionsRequest.
 * Use `create(FailActionsRequestSchema)` to create a new message.
 */
export const FailActionsRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 6);
/**
 * Describes the message flotilla.v1.StopVmRequest.
 * Use `create(StopVmRequestSchema)` to create a new message.
 */
export const StopVmRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 7);
/**
 * Describes the message flotilla.v1.DeleteVmRequest.
 * Use `create(DeleteVmRequestSchema)` to create a new message.
 */
export const DeleteVmRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 8);
/**
 * Describes the message flotilla.v1.SetZoneCapacityRequest.
 * Use `create(SetZoneCapacityRequestSchema)` to create a new message.
 */
export const SetZoneCapacityRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 9);
/**
 * Describes the message flotilla.v1.SetHostReachableRequest.
 * Use `create(SetHostReachableRequestSchema)` to create a new message.
 */
export const SetHostReachableRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_simulator, 10);
/**
 * Injects faults into sim clusters and the sim IaaS.
 *
 * @generated from service flotilla.v1.SimulatorService
 */
export const SimulatorService = /*@__PURE__*/ serviceDesc(file_flotilla_v1_simulator, 0);
