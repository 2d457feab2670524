// StatusService: the status query of deployment intent groups and cluster network
// intents (seed 000's status table), historical instances, and WatchStatus.
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_flotilla_v1_common } from "./common_pb.js";
import { file_flotilla_v1_lifecycle } from "./lifecycle_pb.js";
import { file_google_protobuf_struct, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/status.proto.
 */
export const file_flotilla_v1_status = /*@__PURE__*/ fileDesc("ChhmbG90aWxsYS92MS9zdGF0dXMucHJvdG8SC2Zsb3RpbGxhLnYxImsKEVJzeW5jU3RhdHVzQ291bnRzEg8KB3BlbmRpbmcYASABKAUSDwoHYXBwbGllZBgCIAEoBRIOCgZmYWlsZWQYAyABKAUSEAoIcmV0cnlpbmcYBCABKAUSEgoKdGVybWluYXRlZBgFIAEoBSJMChNDbHVzdGVyU3RhdHVzQ291bnRzEg8KB3ByZXNlbnQYASABKAUSEwoLbm90X3ByZXNlbnQYAiABKAUSDwoHdW5rbm93bhgDIAEoBSIzCg9SZWFkaW5lc3NDb3VudHMSDQoFcmVhZHkYASABKAUSEQoJbm90X3JlYWR5GAIgASgFIvQCChNSZXNvdXJjZVN0YXR1c0VudHJ5EioKA2d2axgBIAEoCzIdLmZsb3RpbGxhLnYxLkdyb3VwVmVyc2lvbktpbmQSDAoEbmFtZRgCIAEoCRIRCgluYW1lc3BhY2UYAyABKAkSKQoIbWV0YWRhdGEYBCABKAsyFy5nb29nbGUucHJvdG9idWYuU3RydWN0EiUKBHNwZWMYBSABKAsyFy5nb29nbGUucHJvdG9idWYuU3RydWN0EicKBnN0YXR1cxgGIAEoCzIXLmdvb2dsZS5wcm90b2J1Zi5TdHJ1Y3QSLgoMcnN5bmNfc3RhdHVzGAcgASgOMhguZmxvdGlsbGEudjEuUnN5bmNTdGF0dXMSOgoOY2x1c3Rlcl9zdGF0dXMYCCABKA4yIi5mbG90aWxsYS52MS5DbHVzdGVyUmVzb3VyY2VTdGF0dXMSKQoJcmVhZGluZXNzGAkgASgOMhYuZmxvdGlsbGEudjEuUmVhZGluZXNzIm8KEENsdXN0ZXJSZXNvdXJjZXMSDAoEbmFtZRgBIAEoCRIYChBjbHVzdGVyX3Byb3ZpZGVyGAIgASgJEjMKCXJlc291cmNlcxgDIAMoCzIgLmZsb3RpbGxhLnYxLlJlc291cmNlU3RhdHVzRW50cnkiUQoMQXBwUmVzb3VyY2VzEhAKCGFwcF9uYW1lGAEgASgJEi8KCGNsdXN0ZXJzGAIgAygLMh0uZmxvdGlsbGEudjEuQ2x1c3RlclJlc291cmNlcyK/AwoOUmVzb3VyY2VTdGF0dXMSDAoEbmFtZRgBIAEoCRIPCgdwcm9qZWN0GAIgASgJEhoKEmNvbXBvc2l0ZV9hcHBfbmFtZRgDIAEoCRIdChVjb21wb3NpdGVfYXBwX3ZlcnNpb24YBCABKAkSHgoWY29tcG9zaXRlX3Byb2ZpbGVfbmFtZRgFIAEoCRINCgVzdGF0ZRgGIAEoCRIQCghpbnN0YW5jZRgHIAEoCRI0Cgxyc3luY19zdGF0dXMYCCABKAsyHi5mbG90aWxsYS52MS5Sc3luY1N0YXR1c0NvdW50cxI4Cg5jbHVzdGVyX3N0YXR1cxgJIAEoCzIgLmZsb3RpbGxhLnYxLkNsdXN0ZXJTdGF0dXNDb3VudHMSLwoJcmVhZGluZXNzGAogASgLMhwuZmxvdGlsbGEudjEuUmVhZGluZXNzQ291bnRzEiwKCXJlc291cmNlcxgLIAMoCzIZLmZsb3RpbGxhLnYxLkFwcFJlc291cmNlcxIqCgpjb25kaXRpb25zGAwgAygLMhYuZmxvdGlsbGEudjEuQ29uZGl0aW9uEhcKD25leHRfcGFnZV90b2tlbhgNIAEoCSLMAQolR2V0RGVwbG95bWVudEludGVudEdyb3VwU3RhdHVzUmVxdWVzdBIMCgRuYW1lGAEgASgJEikKBm91dHB1dBgCIAEoDjIZLmZsb3RpbGxhLnYxLlN0YXR1c091dHB1dBIMCgRhcHBzGAMgAygJEhAKCGNsdXN0ZXJzGAQgAygJEhEKCXJlc291cmNlcxgFIAMoCRIQCghpbnN0YW5jZRgGIAEoCRIRCglwYWdlX3NpemUYByABKAUSEgoKcGFnZV90b2tlbhgIIAEoCSLFAQoeR2V0Q2x1c3Rlck5ldHdvcmtTdGF0dXNSZXF1ZXN0EgwKBG5hbWUYASABKAkSKQoGb3V0cHV0GAIgASgOMhkuZmxvdGlsbGEudjEuU3RhdHVzT3V0cHV0EgwKBGFwcHMYAyADKAkSEAoIY2x1c3RlcnMYBCADKAkSEQoJcmVzb3VyY2VzGAUgAygJEhAKCGluc3RhbmNlGAYgASgJEhEKCXBhZ2Vfc2l6ZRgHIAEoBRISCgpwYWdlX3Rva2VuGAggASgJIucBCghJbnN0YW5jZRIMCgRuYW1lGAEgASgJEgoKAmlkGAIgASgJEg0KBW93bmVyGAMgASgJEhAKCHJldmlzaW9uGAQgASgDEg8KB2N1cnJlbnQYBSABKAgSEgoKdGVybWluYXRlZBgGIAEoCBIWCg5yZXNvdXJjZV9jb3VudBgHIAEoBRIvCgtjcmVhdGVfdGltZRgIIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASMgoOdGVybWluYXRlX3RpbWUYCSABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wIksKFExpc3RJbnN0YW5jZXNSZXF1ZXN0EgwKBG5hbWUYASABKAkSEQoJcGFnZV9zaXplGAIgASgFEhIKCnBhZ2VfdG9rZW4YAyABKAkiWgoVTGlzdEluc3RhbmNlc1Jlc3BvbnNlEigKCWluc3RhbmNlcxgBIAMoCzIVLmZsb3RpbGxhLnYxLkluc3RhbmNlEhcKD25leHRfcGFnZV90b2tlbhgCIAEoCSKWAQoSV2F0Y2hTdGF0dXNSZXF1ZXN0EgwKBG5hbWUYASABKAkSKQoGb3V0cHV0GAIgASgOMhkuZmxvdGlsbGEudjEuU3RhdHVzT3V0cHV0EgwKBGFwcHMYAyADKAkSEAoIY2x1c3RlcnMYBCADKAkSEQoJcmVzb3VyY2VzGAUgAygJEhQKDHJlc3VtZV90b2tlbhgGIAEoCSI+ChNXYXRjaFN0YXR1c1Jlc3BvbnNlEicKBmV2ZW50cxgBIAMoCzIXLmZsb3RpbGxhLnYxLldhdGNoRXZlbnQiwQMKCldhdGNoRXZlbnQSKQoEdHlwZRgBIAEoDjIbLmZsb3RpbGxhLnYxLldhdGNoRXZlbnRUeXBlEhQKDHJlc3VtZV90b2tlbhgCIAEoCRIoCgR0aW1lGAMgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIQCghhcHBfbmFtZRgEIAEoCRIPCgdjbHVzdGVyGAUgASgJEjIKCHJlc291cmNlGAYgASgLMiAuZmxvdGlsbGEudjEuUmVzb3VyY2VTdGF0dXNFbnRyeRI0Cgxyc3luY19zdGF0dXMYByABKAsyHi5mbG90aWxsYS52MS5Sc3luY1N0YXR1c0NvdW50cxI4Cg5jbHVzdGVyX3N0YXR1cxgIIAEoCzIgLmZsb3RpbGxhLnYxLkNsdXN0ZXJTdGF0dXNDb3VudHMSLwoJcmVhZGluZXNzGAkgASgLMhwuZmxvdGlsbGEudjEuUmVhZGluZXNzQ291bnRzEg0KBXN0YXRlGAogASgJEhAKCGluc3RhbmNlGAsgASgJEi8KDGNvbm5lY3Rpdml0eRgMIAEoDjIZLmZsb3RpbGxhLnYxLkNvbm5lY3Rpdml0eSqSAQoMU3RhdHVzT3V0cHV0Eh0KGVNUQVRVU19PVVRQVVRfVU5TUEVDSUZJRUQQABIZChVTVEFUVVNfT1VUUFVUX1NVTU1BUlkQARIVChFTVEFUVVNfT1VUUFVUX0FMTBACEhgKFFNUQVRVU19PVVRQVVRfREVUQUlMEAMSFwoTU1RBVFVTX09VVFBVVF9SU1lOQxAEKrMBChVDbHVzdGVyUmVzb3VyY2VTdGF0dXMSJwojQ0xVU1RFUl9SRVNPVVJDRV9TVEFUVVNfVU5TUEVDSUZJRUQQABIjCh9DTFVTVEVSX1JFU09VUkNFX1NUQVRVU19VTktOT1dOEAESJwojQ0xVU1RFUl9SRVNPVVJDRV9TVEFUVVNfTk9UX1BSRVNFTlQQAhIjCh9DTFVTVEVSX1JFU09VUkNFX1NUQVRVU19QUkVTRU5UEAMqVAoJUmVhZGluZXNzEhkKFVJFQURJTkVTU19VTlNQRUNJRklFRBAAEhMKD1JFQURJTkVTU19SRUFEWRABEhcKE1JFQURJTkVTU19OT1RfUkVBRFkQAiq0AgoOV2F0Y2hFdmVudFR5cGUSIAocV0FUQ0hfRVZFTlRfVFlQRV9VTlNQRUNJRklFRBAAEiUKIVdBVENIX0VWRU5UX1RZUEVfUkVTT1VSQ0VfQ0hBTkdFRBABEiMKH1dBVENIX0VWRU5UX1RZUEVfQ09VTlRTX0NIQU5HRUQQAhImCiJXQVRDSF9FVkVOVF9UWVBFX0xJRkVDWUNMRV9DSEFOR0VEEAMSKQolV0FUQ0hfRVZFTlRfVFlQRV9DT05ORUNUSVZJVFlfQ0hBTkdFRBAEEhsKF1dBVENIX0VWRU5UX1RZUEVfU1lOQ0VEEAUSJAogV0FUQ0hfRVZFTlRfVFlQRV9SRVNZTkNfUkVRVUlSRUQQBhIeChpXQVRDSF9FVkVOVF9UWVBFX0hFQVJUQkVBVBAHMpMDCg1TdGF0dXNTZXJ2aWNlEnEKHkdldERlcGxveW1lbnRJbnRlbnRHcm91cFN0YXR1cxIyLmZsb3RpbGxhLnYxLkdldERlcGxveW1lbnRJbnRlbnRHcm91cFN0YXR1c1JlcXVlc3QaGy5mbG90aWxsYS52MS5SZXNvdXJjZVN0YXR1cxJjChdHZXRDbHVzdGVyTmV0d29ya1N0YXR1cxIrLmZsb3RpbGxhLnYxLkdldENsdXN0ZXJOZXR3b3JrU3RhdHVzUmVxdWVzdBobLmZsb3RpbGxhLnYxLlJlc291cmNlU3RhdHVzElYKDUxpc3RJbnN0YW5jZXMSIS5mbG90aWxsYS52MS5MaXN0SW5zdGFuY2VzUmVxdWVzdBoiLmZsb3RpbGxhLnYxLkxpc3RJbnN0YW5jZXNSZXNwb25zZRJSCgtXYXRjaFN0YXR1cxIfLmZsb3RpbGxhLnYxLldhdGNoU3RhdHVzUmVxdWVzdBogLmZsb3RpbGxhLnYxLldhdGNoU3RhdHVzUmVzcG9uc2UwAWIGcHJvdG8z", [file_flotilla_v1_common, file_flotilla_v1_lifecycle, file_google_protobuf_struct, file_google_protobuf_timestamp]);
/**
 * Describes the message flotilla.v1.RsyncStatusCounts.
 * Use `create(RsyncStatusCountsSchema)` to create a new message.
 */
export const RsyncStatusCountsSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 0);
/**
 * Describes the message flotilla.v1.ClusterStatusCounts.
 * Use `create(ClusterStatusCountsSchema)` to create a new message.
 */
export const ClusterStatusCountsSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 1);
/**
 * Describes the message flotilla.v1.ReadinessCounts.
 * Use `create(ReadinessCountsSchema)` to create a new message.
 */
export const ReadinessCountsSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 2);
/**
 * Describes the message flotilla.v1.ResourceStatusEntry.
 * Use `create(ResourceStatusEntrySchema)` to create a new message.
 */
export const ResourceStatusEntrySchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 3);
/**
 * Describes the message flotilla.v1.ClusterResources.
 * Use `create(ClusterResourcesSchema)` to create a new message.
 */
export const ClusterResourcesSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 4);
/**
 * Describes the message flotilla.v1.AppResources.
 * Use `create(AppResourcesSchema)` to create a new message.
 */
export const AppResourcesSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 5);
/**
 * Describes the message flotilla.v1.ResourceStatus.
 * Use `create(ResourceStatusSchema)` to create a new message.
 */
export const ResourceStatusSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 6);
/**
 * Describes the message flotilla.v1.GetDeploymentIntentGroupStatusRequest.
 * Use `create(GetDeploymentIntentGroupStatusRequestSchema)` to create a new message.
 */
export const GetDeploymentIntentGroupStatusRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 7);
/**
 * Describes the message flotilla.v1.GetClusterNetworkStatusRequest.
 * Use `create(GetClusterNetworkStatusRequestSchema)` to create a new message.
 */
export const GetClusterNetworkStatusRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 8);
/**
 * Describes the message flotilla.v1.Instance.
 * Use `create(InstanceSchema)` to create a new message.
 */
export const InstanceSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 9);
/**
 * Describes the message flotilla.v1.ListInstancesRequest.
 * Use `create(ListInstancesRequestSchema)` to create a new message.
 */
export const ListInstancesRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 10);
/**
 * Describes the message flotilla.v1.ListInstancesResponse.
 * Use `create(ListInstancesResponseSchema)` to create a new message.
 */
export const ListInstancesResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 11);
/**
 * Describes the message flotilla.v1.WatchStatusRequest.
 * Use `create(WatchStatusRequestSchema)` to create a new message.
 */
export const WatchStatusRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 12);
/**
 * Describes the message flotilla.v1.WatchStatusResponse.
 * Use `create(WatchStatusResponseSchema)` to create a new message.
 */
export const WatchStatusResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 13);
/**
 * Describes the message flotilla.v1.WatchEvent.
 * Use `create(WatchEventSchema)` to create a new message.
 */
export const WatchEventSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 14);
/**
 * How much a status query returns (the seed's `output` parameter).
 *
 * @generated from enum flotilla.v1.StatusOutput
 */
export var StatusOutput;
(function (StatusOutput) {
    /**
     * Unset means ALL.
     *
     * @generated from enum value: STATUS_OUTPUT_UNSPECIFIED = 0;
     */
    StatusOutput[StatusOutput["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * State and aggregated counts only.
     *
     * @generated from enum value: STATUS_OUTPUT_SUMMARY = 1;
     */
    StatusOutput[StatusOutput["SUMMARY"] = 1] = "SUMMARY";
    /**
     * Counts and the resource tree with identification and statuses.
     *
     * @generated from enum value: STATUS_OUTPUT_ALL = 2;
     */
    StatusOutput[StatusOutput["ALL"] = 2] = "ALL";
    /**
     * ALL plus metadata, spec and status of each cluster resource.
     *
     * @generated from enum value: STATUS_OUTPUT_DETAIL = 3;
     */
    StatusOutput[StatusOutput["DETAIL"] = 3] = "DETAIL";
    /**
     * Only rsync resources, with metadata and spec from the rendered manifest; no cluster status.
     *
     * @generated from enum value: STATUS_OUTPUT_RSYNC = 4;
     */
    StatusOutput[StatusOutput["RSYNC"] = 4] = "RSYNC";
})(StatusOutput || (StatusOutput = {}));
/**
 * Describes the enum flotilla.v1.StatusOutput.
 */
export const StatusOutputSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_status, 0);
/**
 * The cluster status of a resource, derived from the cluster's ResourceBundleState.
 *
 * @generated from enum flotilla.v1.ClusterResourceStatus
 */
export var ClusterResourceStatus;
(function (ClusterResourceStatus) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_UNSPECIFIED = 0;
     */
    ClusterResourceStatus[ClusterResourceStatus["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * No bundle state received yet, or the kind is not monitored.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_UNKNOWN = 1;
     */
    ClusterResourceStatus[ClusterResourceStatus["UNKNOWN"] = 1] = "UNKNOWN";
    /**
     * The kind is monitored and the resource is absent from the cluster.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_NOT_PRESENT = 2;
     */
    ClusterResourceStatus[ClusterResourceStatus["NOT_PRESENT"] = 2] = "NOT_PRESENT";
    /**
     * The resource is present in the cluster.
     *
     * @generated from enum value: CLUSTER_RESOURCE_STATUS_PRESENT = 3;
     */
    ClusterResourceStatus[ClusterResourceStatus["PRESENT"] = 3] = "PRESENT";
})(ClusterResourceStatus || (ClusterResourceStatus = {}));
/**
 * Describes the enum flotilla.v1.ClusterResourceStatus.
 */
export const ClusterResourceStatusSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_status, 1);
/**
 * The readiness of a cluster resource, derived from its status.
 *
 * @generated from enum flotilla.v1.Readiness
 */
export var Readiness;
(function (Readiness) {
    /**
     * Not known (no bundle state, or not present).
     *
     * @generated from enum value: READINESS_UNSPECIFIED = 0;
     */
    Readiness[Readiness["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Ready (Deployment available, Pod Ready, Job complete, ...).
     *
     * @generated from enum value: READINESS_READY = 1;
     */
    Readiness[Readiness["READY"] = 1] = "READY";
    /**
     * Present but not ready.
     *
     * @generated from enum value: READINESS_NOT_READY = 2;
     */
    Readiness[Readiness["NOT_READY"] = 2] = "NOT_READY";
})(Readiness || (Readiness = {}));
/**
 * Describes the enum flotilla.v1.Readiness.
 */
export const ReadinessSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_status, 2);
/**
 * The kind of a WatchStatus event.
 *
 * @generated from enum flotilla.v1.WatchEventType
 */
export var WatchEventType;
(function (WatchEventType) {
    /**
     * Never sent.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_UNSPECIFIED = 0;
     */
    WatchEventType[WatchEventType["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * A resource's rsync status, cluster status or readiness changed (or snapshot entry).
     *
     * @generated from enum value: WATCH_EVENT_TYPE_RESOURCE_CHANGED = 1;
     */
    WatchEventType[WatchEventType["RESOURCE_CHANGED"] = 1] = "RESOURCE_CHANGED";
    /**
     * Aggregated counts changed.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_COUNTS_CHANGED = 2;
     */
    WatchEventType[WatchEventType["COUNTS_CHANGED"] = 2] = "COUNTS_CHANGED";
    /**
     * The owner's lifecycle state changed (possibly with a new instance).
     *
     * @generated from enum value: WATCH_EVENT_TYPE_LIFECYCLE_CHANGED = 3;
     */
    WatchEventType[WatchEventType["LIFECYCLE_CHANGED"] = 3] = "LIFECYCLE_CHANGED";
    /**
     * A cluster's connectivity changed.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_CONNECTIVITY_CHANGED = 4;
     */
    WatchEventType[WatchEventType["CONNECTIVITY_CHANGED"] = 4] = "CONNECTIVITY_CHANGED";
    /**
     * The snapshot is complete; live events follow.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_SYNCED = 5;
     */
    WatchEventType[WatchEventType["SYNCED"] = 5] = "SYNCED";
    /**
     * The resume token is older than retention; a fresh snapshot follows.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_RESYNC_REQUIRED = 6;
     */
    WatchEventType[WatchEventType["RESYNC_REQUIRED"] = 6] = "RESYNC_REQUIRED";
    /**
     * Keep-alive carrying the latest token.
     *
     * @generated from enum value: WATCH_EVENT_TYPE_HEARTBEAT = 7;
     */
    WatchEventType[WatchEventType["HEARTBEAT"] = 7] = "HEARTBEAT";
})(WatchEventType || (WatchEventType = {}));
/**
 * Describes the enum flotilla.v1.WatchEventType.
 */
export const WatchEventTypeSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_status, 3);
/**
 * Answers status queries and streams status changes.
 *
 * @generated from service flotilla.v1.StatusService
 */
export const StatusService = /*@__PURE__*/ serviceDesc(file_flotilla_v1_status, 0);
