// AccessService: the bearer tokens that authenticate every RPC but health and
// reflection. Tokens carry a role; the server stores only their SHA-256 hashes, so a
// token's secret is shown once, in the response that creates it.
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_google_protobuf_duration, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/access.proto.
 */
export const file_flotilla_v1_access = /*@__PURE__*/ fileDesc("ChhmbG90aWxsYS92MS9hY2Nlc3MucHJvdG8SC2Zsb3RpbGxhLnYxIsoCCgVUb2tlbhIMCgRuYW1lGAEgASgJEhMKC2Rlc2NyaXB0aW9uGAIgASgJEh8KBHJvbGUYAyABKA4yES5mbG90aWxsYS52MS5Sb2xlEhAKCHByb2plY3RzGAQgAygJEg8KB2NsdXN0ZXIYBSABKAkSJgoFc3RhdGUYBiABKA4yFy5mbG90aWxsYS52MS5Ub2tlblN0YXRlEi8KC2NyZWF0ZV90aW1lGAcgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIvCgtleHBpcmVfdGltZRgIIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLwoLcmV2b2tlX3RpbWUYCSABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEg8KB2NyZWF0b3IYCiABKAkSDgoGc2VjcmV0GAsgASgJIl8KEkNyZWF0ZVRva2VuUmVxdWVzdBIhCgV0b2tlbhgBIAEoCzISLmZsb3RpbGxhLnYxLlRva2VuEiYKA3R0bBgCIAEoCzIZLmdvb2dsZS5wcm90b2J1Zi5EdXJhdGlvbiIfCg9HZXRUb2tlblJlcXVlc3QSDAoEbmFtZRgBIAEoCSJRChFMaXN0VG9rZW5zUmVxdWVzdBIRCglwYWdlX3NpemUYASABKAUSEgoKcGFnZV90b2tlbhgCIAEoCRIVCg1zaG93X2luYWN0aXZlGAMgASgIIlEKEkxpc3RUb2tlbnNSZXNwb25zZRIiCgZ0b2tlbnMYASADKAsyEi5mbG90aWxsYS52MS5Ub2tlbhIXCg9uZXh0X3BhZ2VfdG9rZW4YAiABKAkiIgoSUmV2b2tlVG9rZW5SZXF1ZXN0EgwKBG5hbWUYASABKAkiGAoWR2V0Q3VycmVudFRva2VuUmVxdWVzdCpeCgRSb2xlEhQKEFJPTEVfVU5TUEVDSUZJRUQQABIOCgpST0xFX0FETUlOEAESDwoLUk9MRV9FRElUT1IQAhIPCgtST0xFX1ZJRVdFUhADEg4KClJPTEVfQUdFTlQQBCpzCgpUb2tlblN0YXRlEhsKF1RPS0VOX1NUQVRFX1VOU1BFQ0lGSUVEEAASFgoSVE9LRU5fU1RBVEVfQUNUSVZFEAESFwoTVE9LRU5fU1RBVEVfRVhQSVJFRBACEhcKE1RPS0VOX1NUQVRFX1JFVk9LRUQQAzLwAgoNQWNjZXNzU2VydmljZRJCCgtDcmVhdGVUb2tlbhIfLmZsb3RpbGxhLnYxLkNyZWF0ZVRva2VuUmVxdWVzdBoSLmZsb3RpbGxhLnYxLlRva2VuEjwKCEdldFRva2VuEhwuZmxvdGlsbGEudjEuR2V0VG9rZW5SZXF1ZXN0GhIuZmxvdGlsbGEudjEuVG9rZW4STQoKTGlzdFRva2VucxIeLmZsb3RpbGxhLnYxLkxpc3RUb2tlbnNSZXF1ZXN0Gh8uZmxvdGlsbGEudjEuTGlzdFRva2Vuc1Jlc3BvbnNlEkIKC1Jldm9rZVRva2VuEh8uZmxvdGlsbGEudjEuUmV2b2tlVG9rZW5SZXF1ZXN0GhIuZmxvdGlsbGEudjEuVG9rZW4SSgoPR2V0Q3VycmVudFRva2VuEiMuZmxvdGlsbGEudjEuR2V0Q3VycmVudFRva2VuUmVxdWVzdBoSLmZsb3RpbGxhLnYxLlRva2VuYgZwcm90bzM", [file_google_protobuf_duration, file_google_protobuf_timestamp]);
/**
 * Describes the message flotilla.v1.Token.
 * Use `create(TokenSchema)` to create a new message.
 */
export const TokenSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_access, 0);
/**
 * Describes the message flotilla.v1.CreateTokenRequest.
 * Use `create(CreateTokenRequestSchema)` to create a new message.
 */
export const CreateTokenRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_access, 1);
/**
 * Describes the message flotilla.v1.GetTokenRequest.
 * Use `create(GetTokenRequestSchema)` to create a new message.
 */
export const GetTokenRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_access, 2);
/**
 * Describes the message flotilla.v1.ListTokensRequest.
 * Use `create(ListTokensRequestSchema)` to create a new message.
 */
export const ListTokensRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_access, 3);
/**
 * Describes the message flotilla.v1.ListTokensResponse.
 * Use `create(ListTokensResponseSchema)` to create a new message.
 */
export const ListTokensResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_access, 4);
/**
 * Describes the message flotilla.v1.RevokeTokenRequest.
 * Use `create(RevokeTokenRequestSchema)` to create a new message.
 */
export const RevokeTokenRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_access, 5);
/**
 * Describes the message flotilla.v1.GetCurrentTokenRequest.
 * Use `create(GetCurrentTokenRequestSchema)` to create a new message.
 */
export const GetCurrentTokenRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_access, 6);
/**
 * What a token may do.
 *
 * @generated from enum flotilla.v1.Role
 */
export var Role;
(function (Role) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: ROLE_UNSPECIFIED = 0;
     */
    Role[Role["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Everything, including tokens, cluster providers, clusters and the simulator.
     *
     * @generated from enum value: ROLE_ADMIN = 1;
     */
    Role[Role["ADMIN"] = 1] = "ADMIN";
    /**
     * Read and write within the token's projects (and the status of their groups);
     * read-only on cluster providers and clusters.
     *
     * @generated from enum value: ROLE_EDITOR = 2;
     */
    Role[Role["EDITOR"] = 2] = "EDITOR";
    /**
     * Read-only, within the token's projects or, without projects, everywhere.
     *
     * @generated from enum value: ROLE_VIEWER = 3;
     */
    Role[Role["VIEWER"] = 3] = "VIEWER";
    /**
     * A cluster agent: only AgentService.Connect for its own cluster. Issued by
     * CreateCluster and RotateClusterAgentToken, never by CreateToken.
     *
     * @generated from enum value: ROLE_AGENT = 4;
     */
    Role[Role["AGENT"] = 4] = "AGENT";
})(Role || (Role = {}));
/**
 * Describes the enum flotilla.v1.Role.
 */
export const RoleSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_access, 0);
/**
 * The state of a token.
 *
 * @generated from enum flotilla.v1.TokenState
 */
export var TokenState;
(function (TokenState) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: TOKEN_STATE_UNSPECIFIED = 0;
     */
    TokenState[TokenState["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * The token authenticates calls.
     *
     * @generated from enum value: TOKEN_STATE_ACTIVE = 1;
     */
    TokenState[TokenState["ACTIVE"] = 1] = "ACTIVE";
    /**
     * The token's expire_time has passed.
     *
     * @generated from enum value: TOKEN_STATE_EXPIRED = 2;
     */
    TokenState[TokenState["EXPIRED"] = 2] = "EXPIRED";
    /**
     * The token was revoked (or, for agent tokens, rotated).
     *
     * @generated from enum value: TOKEN_STATE_REVOKED = 3;
     */
    TokenState[TokenState["REVOKED"] = 3] = "REVOKED";
})(TokenState || (TokenState = {}));
/**
 * Describes the enum flotilla.v1.TokenState.
 */
export const TokenStateSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_access, 1);
/**
 * Manages access tokens. Every method but GetCurrentToken is for admins.
 *
 * @generated from service flotilla.v1.AccessService
 */
export const AccessService = /*@__PURE__*/ serviceDesc(file_flotilla_v1_access, 0);
