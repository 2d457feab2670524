// StatusService: the status query of deployment intent groups and cluster network
// intents (seed 000's status table), historical instances, and WatchStatus.
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_flotilla_v1_common } from "./common_pb.js";
import { file_flotilla_v1_lifecycle } from "./lifecycle_pb.js";
import { file_google_protobuf_struct, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/status.proto.
 */
export const file_flotilla_v1_status = /*@__PURE__*/ fileDesc("ChhmbG90aWxsYS92MS9zdGF0dXMucHJvdG8SC2Zsb3RpbGxhLnYxIn8KEVJzeW5jU3RhdHVzQ291bnRzEg8KB3BlbmRpbmcYASABKAUSDwoHYXBwbGllZBgCIAEoBRIOCgZmYWlsZWQYAyABKAUSEAoIcmV0cnlpbmcYBCABKAUSEgoKdGVybWluYXRlZBgFIAEoBRISCgpzdXBlcnNlZGVkGAYgASgFIkwKE0NsdXN0ZXJTdGF0dXNDb3VudHMSDwoHcHJlc2VudBgBIAEoBRITCgtub3RfcHJlc2VudBgCIAEoBRIPCgd1bmtub3duGAMgASgFIjMKD1JlYWRpbmVzc0NvdW50cxINCgVyZWFkeRgBIAEoBRIRCglub3RfcmVhZHkYAiABKAUi9AIKE1Jlc291cmNlU3RhdHVzRW50cnkSKgoDZ3ZrGAEgASgLMh0uZmxvdGlsbGEudjEuR3JvdXBWZXJzaW9uS2luZBIMCgRuYW1lGAIgASgJEhEKCW5hbWVzcGFjZRgDIAEoCRIpCghtZXRhZGF0YRgEIAEoCzIXLmdvb2dsZS5wcm90b2J1Zi5TdHJ1Y3QSJQoEc3BlYxgFIAEoCzIXLmdvb2dsZS5wcm90b2J1Zi5TdHJ1Y3QSJwoGc3RhdHVzGAYgASgLMhcuZ29vZ2xlLnByb3RvYnVmLlN0cnVjdBIuCgxyc3luY19zdGF0dXMYByABKA4yGC5mbG90aWxsYS52MS5Sc3luY1N0YXR1cxI6Cg5jbHVzdGVyX3N0YXR1cxgIIAEoDjIiLmZsb3RpbGxhLnYxLkNsdXN0ZXJSZXNvdXJjZVN0YXR1cxIpCglyZWFkaW5lc3MYCSABKA4yFi5mbG90aWxsYS52MS5SZWFkaW5lc3MibwoQQ2x1c3RlclJlc291cmNlcxIMCgRuYW1lGAEgASgJEhgKEGNsdXN0ZXJfcHJvdmlkZXIYAiABKAkSMwoJcmVzb3VyY2VzGAMgAygLMiAuZmxvdGlsbGEudjEuUmVzb3VyY2VTdGF0dXNFbnRyeSJRCgxBcHBSZXNvdXJjZXMSEAoIYXBwX25hbWUYASABKAkSLwoIY2x1c3RlcnMYAiADKAsyHS5mbG90aWxsYS52MS5DbHVzdGVyUmVzb3VyY2VzIr8DCg5SZXNvdXJjZVN0YXR1cxIMCgRuYW1lGAEgASgJEg8KB3Byb2plY3QYAiABKAkSGgoSY29tcG9zaXRlX2FwcF9uYW1lGAMgASgJEh0KFWNvbXBvc2l0ZV9hcHBfdmVyc2lvbhgEIAEoCRIeChZjb21wb3NpdGVfcHJvZmlsZV9uYW1lGAUgASgJEg0KBXN0YXRlGAYgASgJEhAKCGluc3RhbmNlGAcgASgJEjQKDHJzeW5jX3N0YXR1cxgIIAEoCzIeLmZsb3RpbGxhLnYxLlJzeW5jU3RhdHVzQ291bnRzEjgKDmNsdXN0ZXJfc3RhdHVzGAkgASgLMiAuZmxvdGlsbGEudjEuQ2x1c3RlclN0YXR1c0NvdW50cxIvCglyZWFkaW5lc3MYCiABKAsyHC5mbG90aWxsYS52MS5SZWFkaW5lc3NDb3VudHMSLAoJcmVzb3VyY2VzGAsgAygLMhkuZmxvdGlsbGEudjEuQXBwUmVzb3VyY2VzEioKCmNvbmRpdGlvbnMYDCADKAsyFi5mbG90aWxsYS52MS5Db25kaXRpb24SFwoPbmV4dF9wYWdlX3Rva2VuGA0gASgJIswBCiVHZXREZXBsb3ltZW50SW50ZW50R3JvdXBTdGF0dXNSZXF1ZXN0EgwKBG5hbWUYASABKAkSKQoGb3V0cHV0GAIgASgOMhkuZmxvdGlsbGEudjEuU3RhdHVzT3V0cHV0EgwKBGFwcHMYAyADKAkSEAoIY2x1c3RlcnMYBCADKAkSEQoJcmVzb3VyY2VzGAUgAygJEhAKCGluc3RhbmNlGAYgASgJEhEKCXBhZ2Vfc2l6ZRgHIAEoBRISCgpwYWdlX3Rva2VuGAggASgJIsUBCh5HZXRDbHVzdGVyTmV0d29ya1N0YXR1c1JlcXVlc3QSDAoEbmFtZRgBIAEoCRIpCgZvdXRwdXQYAiABKA4yGS5mbG90aWxsYS52MS5TdGF0dXNPdXRwdXQSDAoEYXBwcxgDIAMoCRIQCghjbHVzdGVycxgEIAMoCRIRCglyZXNvdXJjZXMYBSADKAkSEAoIaW5zdGFuY2UYBiABKAkSEQoJcGFnZV9zaXplGAcgASgFEhIKCnBhZ2VfdG9rZW4YCCABKAki5wEKCEluc3RhbmNlEgwKBG5hbWUYASABKAkSCgoCaWQYAiABKAkSDQoFb3duZXIYAyABKAkSEAoIcmV2aXNpb24YBCABKAMSDwoHY3VycmVudBgFIAEoCBISCgp0ZXJtaW5hdGVkGAYgASgIEhYKDnJlc291cmNlX2NvdW50GAcgASgFEi8KC2NyZWF0ZV90aW1lGAggASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIyCg50ZXJtaW5hdGVfdGltZRgJIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAiSwoUTGlzdEluc3RhbmNlc1JlcXVlc3QSDAoEbmFtZRgBIAEoCRIRCglwYWdlX3NpemUYAiABKAUSEgoKcGFnZV90b2tlbhgDIAEoCSJaChVMaXN0SW5zdGFuY2VzUmVzcG9uc2USKAoJaW5zdGFuY2VzGAEgAygLMhUuZmxvdGlsbGEudjEuSW5zdGFuY2USFwoPbmV4dF9wYWdlX3Rva2VuGAIgASgJIpYBChJXYXRjaFN0YXR1c1JlcXVlc3QSDAoEbmFtZRgBIAEoCRIpCgZvdXRwdXQYAiABKA4yGS5mbG90aWxsYS52MS5TdGF0dXNPdXRwdXQSDAoEYXBwcxgDIAMoCRIQCghjbHVzdGVycxgEIAMoCRIRCglyZXNvdXJjZXMYBSADKAkSFAoMcmVzdW1lX3Rva2VuGAYgASgJIj4KE1dhdGNoU3RhdHVzUmVzcG9uc2USJwoGZXZlbnRzGAEgAygLMhcuZmxvdGlsbGEudjEuV2F0Y2hFdmVudCLBAwoKV2F0Y2hFdmVudBIpCgR0eXBlGAEgASgOMhsuZmxvdGlsbGEudjEuV2F0Y2hFdmVudFR5cGUSFAoMcmVzdW1lX3Rva2VuGAIgASgJEigKBHRpbWUYAyABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEhAKCGFwcF9uYW1lGAQgASgJEg8KB2NsdXN0ZXIYBSABKAkSMgoIcmVzb3VyY2UYBiABKAsyIC5mbG90aWxsYS52MS5SZXNvdXJjZVN0YXR1c0VudHJ5EjQKDHJzeW5jX3N0YXR1cxgHIAEoCzIeLmZsb3RpbGxhLnYxLlJzeW5jU3RhdHVzQ291bnRzEjgKDmNsdXN0ZXJfc3RhdHVzGAggASgLMiAuZmxvdGlsbGEudjEuQ2x1c3RlclN0YXR1c0NvdW50cxIvCglyZWFkaW5lc3MYCSABKAsyHC5mbG90aWxsYS52MS5SZWFkaW5lc3NDb3VudHMSDQoFc3RhdGUYCiABKAkSEAoIaW5zdGFuY2UYCyABKAkSLwoMY29ubmVjdGl2aXR5GAwgASgOMhkuZmxvdGlsbGEudjEuQ29ubmVjdGl2aXR5IhMKEVdhdGNoRmxlZXRSZXF1ZXN0ItwCCgpGbGVldEdyb3VwEgwKBG5hbWUYASABKAkSDwoHcHJvamVjdBgCIAEoCRI2CgVzdGF0ZRgDIAEoDjInLmZsb3RpbGxhLnYxLkRlcGxveW1lbnRJbnRlbnRHcm91cFN0YXRlEhAKCHJldmlzaW9uGAQgASgDEhgKEGN1cnJlbnRfaW5zdGFuY2UYBSABKAkSKgoKY29uZGl0aW9ucxgGIAMoCzIWLmZsb3RpbGxhLnYxLkNvbmRpdGlvbhI0Cgxyc3luY19zdGF0dXMYByABKAsyHi5mbG90aWxsYS52MS5Sc3luY1N0YXR1c0NvdW50cxI4Cg5jbHVzdGVyX3N0YXR1cxgIIAEoCzIgLmZsb3RpbGxhLnYxLkNsdXN0ZXJTdGF0dXNDb3VudHMSLwoJcmVhZGluZXNzGAkgASgLMhwuZmxvdGlsbGEudjEuUmVhZGluZXNzQ291bnRzItYCCgxGbGVldENsdXN0ZXISDAoEbmFtZRgBIAEoCRI0Cg9jb25uZWN0aW9uX21vZGUYAiABKA4yGy5mbG90aWxsYS52MS5Db25uZWN0aW9uTW9kZRIvCgxjb25uZWN0aXZpdHkYAyABKA4yGS5mbG90aWxsYS52MS5Db25uZWN0aXZpdHkSPwoVbmV0d29ya19pbnRlbnRzX3N0YXRlGAQgASgOMiAuZmxvdGlsbGEudjEuTmV0d29ya0ludGVudHNTdGF0ZRIqCgpjb25kaXRpb25zGAUgAygLMhYuZmxvdGlsbGEudjEuQ29uZGl0aW9uEjUKBmxhYmVscxgGIAMoCzIlLmZsb3RpbGxhLnYxLkZsZWV0Q2x1c3Rlci5MYWJlbHNFbnRyeRotCgtMYWJlbHNFbnRyeRILCgNrZXkYASABKAkSDQoFdmFsdWUYAiABKAk6AjgBIpYBCgpGbGVldEV2ZW50EikKBHR5cGUYASABKA4yGy5mbG90aWxsYS52MS5GbGVldEV2ZW50VHlwZRIoCgVncm91cBgCIAEoCzIXLmZsb3RpbGxhLnYxLkZsZWV0R3JvdXBIABIsCgdjbHVzdGVyGAMgASgLMhkuZmxvdGlsbGEudjEuRmxlZXRDbHVzdGVySABCBQoDcm93Ij0KEldhdGNoRmxlZXRSZXNwb25zZRInCgZldmVudHMYASADKAsyFy5mbG90aWxsYS52MS5GbGVldEV2ZW50KpIBCgxTdGF0dXNPdXRwdXQSHQoZU1RBVFVTX09VVFBVVF9VTlNQRUNJRklFRBAAEhkKFVNUQVRVU19PVVRQVVRfU1VNTUFSWRABEhUKEVNUQVRVU19PVVRQVVRfQUxMEAISGAoUU1RBVFVTX09VVFBVVF9ERVRBSUwQAxIXChNTVEFUVVNfT1VUUFVUX1JTWU5DEAQqswEKFUNsdXN0ZXJSZXNvdXJjZVN0YXR1cxInCiNDTFVTVEVSX1JFU09VUkNFX1NUQVRVU19VTlNQRUNJRklFRBAAEiMKH0NMVVNURVJfUkVTT1VSQ0VfU1RBVFVTX1VOS05PV04QARInCiNDTFVTVEVSX1JFU09VUkNFX1NUQVRVU19OT1RfUFJFU0VOVBACEiMKH0NMVVNURVJfUkVTT1VSQ0VfU1RBVFVTX1BSRVNFTlQQAypUCglSZWFkaW5lc3MSGQoVUkVBRElORVNTX1VOU1BFQ0lGSUVEEAASEwoPUkVBRElORVNTX1JFQURZEAESFwoTUkVBRElORVNTX05PVF9SRUFEWRACKrQCCg5XYXRjaEV2ZW50VHlwZRIgChxXQVRDSF9FVkVOVF9UWVBFX1VOU1BFQ0lGSUVEEAASJQohV0FUQ0hfRVZFTlRfVFlQRV9SRVNPVVJDRV9DSEFOR0VEEAESIwofV0FUQ0hfRVZFTlRfVFlQRV9DT1VOVFNfQ0hBTkdFRBACEiYKIldBVENIX0VWRU5UX1RZUEVfTElGRUNZQ0xFX0NIQU5HRUQQAxIpCiVXQVRDSF9FVkVOVF9UWVBFX0NPTk5FQ1RJVklUWV9DSEFOR0VEEAQSGwoXV0FUQ0hfRVZFTlRfVFlQRV9TWU5DRUQQBRIkCiBXQVRDSF9FVkVOVF9UWVBFX1JFU1lOQ19SRVFVSVJFRBAGEh4KGldBVENIX0VWRU5UX1RZUEVfSEVBUlRCRUFUEAcqyAEKDkZsZWV0RXZlbnRUeXBlEiAKHEZMRUVUX0VWRU5UX1RZUEVfVU5TUEVDSUZJRUQQABIaChZGTEVFVF9FVkVOVF9UWVBFX0FEREVEEAESHQoZRkxFRVRfRVZFTlRfVFlQRV9NT0RJRklFRBACEhwKGEZMRUVUX0VWRU5UX1RZUEVfREVMRVRFRBADEhsKF0ZMRUVUX0VWRU5UX1RZUEVfU1lOQ0VEEAQSHgoaRkxFRVRfRVZFTlRfVFlQRV9IRUFSVEJFQVQQBTLkAwoNU3RhdHVzU2VydmljZRJxCh5HZXREZXBsb3ltZW50SW50ZW50R3JvdXBTdGF0dXMSMi5mbG90aWxsYS52MS5HZXREZXBsb3ltZW50SW50ZW50R3JvdXBTdGF0dXNSZXF1ZXN0GhsuZmxvdGlsbGEudjEuUmVzb3VyY2VTdGF0dXMSYwoXR2V0Q2x1c3Rlck5ldHdvcmtTdGF0dXMSKy5mbG90aWxsYS52MS5HZXRDbHVzdGVyTmV0d29ya1N0YXR1c1JlcXVlc3QaGy5mbG90aWxsYS52MS5SZXNvdXJjZVN0YXR1cxJWCg1MaXN0SW5zdGFuY2VzEiEuZmxvdGlsbGEudjEuTGlzdEluc3RhbmNlc1JlcXVlc3QaIi5mbG90aWxsYS52MS5MaXN0SW5zdGFuY2VzUmVzcG9uc2USUgoLV2F0Y2hTdGF0dXMSHy5mbG90aWxsYS52MS5XYXRjaFN0YXR1c1JlcXVlc3QaIC5mbG90aWxsYS52MS5XYXRjaFN0YXR1c1Jlc3BvbnNlMAESTwoKV2F0Y2hGbGVldBIeLmZsb3RpbGxhLnYxLldhdGNoRmxlZXRSZXF1ZXN0Gh8uZmxvdGlsbGEudjEuV2F0Y2hGbGVldFJlc3BvbnNlMAFiBnByb3RvMw", [file_flotilla_v1_common, file_flotilla_v1_lifecycle, file_google_protobuf_struct, file_google_protobuf_timestamp]);
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
 * Describes the message flotilla.v1.WatchFleetRequest.
 * Use `create(WatchFleetRequestSchema)` to create a new message.
 */
export const WatchFleetRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 15);
/**
 * Describes the message flotilla.v1.FleetGroup.
 * Use `create(FleetGroupSchema)` to create a new message.
 */
export const FleetGroupSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 16);
/**
 * Describes the message flotilla.v1.FleetCluster.
 * Use `create(FleetClusterSchema)` to create a new message.
 */
export const FleetClusterSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 17);
/**
 * Describes the message flotilla.v1.FleetEvent.
 * Use `create(FleetEventSchema)` to create a new message.
 */
export const FleetEventSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 18);
/**
 * Describes the message flotilla.v1.WatchFleetResponse.
 * Use `create(WatchFleetResponseSchema)` to create a new message.
 */
export const WatchFleetResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_status, 19);
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
     * The owner's lifecycle state changed (possibly with a new instance), or its content
     * revision moved with the state unchanged (an edit kept as a pending revision).
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
 * What a WatchFleet event says.
 *
 * @generated from enum flotilla.v1.FleetEventType
 */
export var FleetEventType;
(function (FleetEventType) {
    /**
     * Never sent.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_UNSPECIFIED = 0;
     */
    FleetEventType[FleetEventType["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * A row appeared; in a snapshot, every row.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_ADDED = 1;
     */
    FleetEventType[FleetEventType["ADDED"] = 1] = "ADDED";
    /**
     * A row changed: the event holds it whole.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_MODIFIED = 2;
     */
    FleetEventType[FleetEventType["MODIFIED"] = 2] = "MODIFIED";
    /**
     * A row went (the event holds its last state).
     *
     * @generated from enum value: FLEET_EVENT_TYPE_DELETED = 3;
     */
    FleetEventType[FleetEventType["DELETED"] = 3] = "DELETED";
    /**
     * The snapshot is complete; changes follow.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_SYNCED = 4;
     */
    FleetEventType[FleetEventType["SYNCED"] = 4] = "SYNCED";
    /**
     * Nothing changed for a while.
     *
     * @generated from enum value: FLEET_EVENT_TYPE_HEARTBEAT = 5;
     */
    FleetEventType[FleetEventType["HEARTBEAT"] = 5] = "HEARTBEAT";
})(FleetEventType || (FleetEventType = {}));
/**
 * Describes the enum flotilla.v1.FleetEventType.
 */
export const FleetEventTypeSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_status, 4);
/**
 * Answers status queries and streams status changes.
 *
 * @generated from service flotilla.v1.StatusService
 */
export const StatusService = /*@__PURE__*/ serviceDesc(file_flotilla_v1_status, 0);
