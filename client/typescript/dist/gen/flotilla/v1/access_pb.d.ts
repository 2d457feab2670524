import type { GenEnum, GenFile, GenMessage, GenService } from "@bufbuild/protobuf/codegenv2";
import type { Duration, Timestamp } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file flotilla/v1/access.proto.
 */
export declare const file_flotilla_v1_access: GenFile;
/**
 * A bearer token. Name: `tokens/{id}`.
 *
 * @generated from message flotilla.v1.Token
 */
export type Token = Message<"flotilla.v1.Token"> & {
    /**
     * The resource name, `tokens/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
    /**
     * Free-form description, e.g. who or what uses the token.
     *
     * @generated from field: string description = 2;
     */
    description: string;
    /**
     * The role.
     *
     * @generated from field: flotilla.v1.Role role = 3;
     */
    role: Role;
    /**
     * Editor and viewer tokens: the project ids the token is confined to. Required for
     * editors; empty for a viewer means every project.
     *
     * @generated from field: repeated string projects = 4;
     */
    projects: string[];
    /**
     * Output only, agent tokens: the cluster, `clusterProviders/{cp}/clusters/{c}`.
     *
     * @generated from field: string cluster = 5;
     */
    cluster: string;
    /**
     * Output only: the state.
     *
     * @generated from field: flotilla.v1.TokenState state = 6;
     */
    state: TokenState;
    /**
     * Output only: when it was created.
     *
     * @generated from field: google.protobuf.Timestamp create_time = 7;
     */
    createTime?: Timestamp | undefined;
    /**
     * Output only: when it expires; unset for tokens that never expire (the bootstrap
     * admin token and agent tokens).
     *
     * @generated from field: google.protobuf.Timestamp expire_time = 8;
     */
    expireTime?: Timestamp | undefined;
    /**
     * Output only: when it was revoked.
     *
     * @generated from field: google.protobuf.Timestamp revoke_time = 9;
     */
    revokeTime?: Timestamp | undefined;
    /**
     * Output only: the name of the token that created this one; empty for tokens the
     * server made itself (the bootstrap admin token, agent tokens).
     *
     * @generated from field: string creator = 10;
     */
    creator: string;
    /**
     * Output only, and only in the response of CreateToken: the secret to send as
     * `authorization: Bearer <secret>`. Stored hashed, never shown again.
     *
     * @generated from field: string secret = 11;
     */
    secret: string;
};
/**
 * Describes the message flotilla.v1.Token.
 * Use `create(TokenSchema)` to create a new message.
 */
export declare const TokenSchema: GenMessage<Token>;
/**
 * Request of CreateToken.
 *
 * @generated from message flotilla.v1.CreateTokenRequest
 */
export type CreateTokenRequest = Message<"flotilla.v1.CreateTokenRequest"> & {
    /**
     * The token: description, role and projects.
     *
     * @generated from field: flotilla.v1.Token token = 1;
     */
    token?: Token | undefined;
    /**
     * How long the token is valid: default 90 days, at most 3650 days.
     *
     * @generated from field: google.protobuf.Duration ttl = 2;
     */
    ttl?: Duration | undefined;
};
/**
 * Describes the message flotilla.v1.CreateTokenRequest.
 * Use `create(CreateTokenRequestSchema)` to create a new message.
 */
export declare const CreateTokenRequestSchema: GenMessage<CreateTokenRequest>;
/**
 * Request of GetToken.
 *
 * @generated from message flotilla.v1.GetTokenRequest
 */
export type GetTokenRequest = Message<"flotilla.v1.GetTokenRequest"> & {
    /**
     * The resource name, `tokens/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.GetTokenRequest.
 * Use `create(GetTokenRequestSchema)` to create a new message.
 */
export declare const GetTokenRequestSchema: GenMessage<GetTokenRequest>;
/**
 * Request of ListTokens.
 *
 * @generated from message flotilla.v1.ListTokensRequest
 */
export type ListTokensRequest = Message<"flotilla.v1.ListTokensRequest"> & {
    /**
     * Page size: default 50, at most 1000.
     *
     * @generated from field: int32 page_size = 1;
     */
    pageSize: number;
    /**
     * The next_page_token of a previous call.
     *
     * @generated from field: string page_token = 2;
     */
    pageToken: string;
    /**
     * Also list revoked and expired tokens.
     *
     * @generated from field: bool show_inactive = 3;
     */
    showInactive: boolean;
};
/**
 * Describes the message flotilla.v1.ListTokensRequest.
 * Use `create(ListTokensRequestSchema)` to create a new message.
 */
export declare const ListTokensRequestSchema: GenMessage<ListTokensRequest>;
/**
 * Response of ListTokens.
 *
 * @generated from message flotilla.v1.ListTokensResponse
 */
export type ListTokensResponse = Message<"flotilla.v1.ListTokensResponse"> & {
    /**
     * The tokens of this page, newest first.
     *
     * @generated from field: repeated flotilla.v1.Token tokens = 1;
     */
    tokens: Token[];
    /**
     * The token of the next page; empty on the last page.
     *
     * @generated from field: string next_page_token = 2;
     */
    nextPageToken: string;
};
/**
 * Describes the message flotilla.v1.ListTokensResponse.
 * Use `create(ListTokensResponseSchema)` to create a new message.
 */
export declare const ListTokensResponseSchema: GenMessage<ListTokensResponse>;
/**
 * Request of RevokeToken.
 *
 * @generated from message flotilla.v1.RevokeTokenRequest
 */
export type RevokeTokenRequest = Message<"flotilla.v1.RevokeTokenRequest"> & {
    /**
     * The resource name, `tokens/{id}`.
     *
     * @generated from field: string name = 1;
     */
    name: string;
};
/**
 * Describes the message flotilla.v1.RevokeTokenRequest.
 * Use `create(RevokeTokenRequestSchema)` to create a new message.
 */
export declare const RevokeTokenRequestSchema: GenMessage<RevokeTokenRequest>;
/**
 * Request of GetCurrentToken.
 *
 * @generated from message flotilla.v1.GetCurrentTokenRequest
 */
export type GetCurrentTokenRequest = Message<"flotilla.v1.GetCurrentTokenRequest"> & {};
/**
 * Describes the message flotilla.v1.GetCurrentTokenRequest.
 * Use `create(GetCurrentTokenRequestSchema)` to create a new message.
 */
export declare const GetCurrentTokenRequestSchema: GenMessage<GetCurrentTokenRequest>;
/**
 * What a token may do.
 *
 * @generated from enum flotilla.v1.Role
 */
export declare enum Role {
    /**
     * Never set by the server.
     *
     * @generated from enum value: ROLE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * Everything, including tokens, cluster providers, clusters and the simulator.
     *
     * @generated from enum value: ROLE_ADMIN = 1;
     */
    ADMIN = 1,
    /**
     * Read and write within the token's projects (and the status of their groups);
     * read-only on cluster providers and clusters.
     *
     * @generated from enum value: ROLE_EDITOR = 2;
     */
    EDITOR = 2,
    /**
     * Read-only, within the token's projects or, without projects, everywhere.
     *
     * @generated from enum value: ROLE_VIEWER = 3;
     */
    VIEWER = 3,
    /**
     * A cluster agent: only AgentService.Connect for its own cluster. Issued by
     * CreateCluster and RotateClusterAgentToken, never by CreateToken.
     *
     * @generated from enum value: ROLE_AGENT = 4;
     */
    AGENT = 4
}
/**
 * Describes the enum flotilla.v1.Role.
 */
export declare const RoleSchema: GenEnum<Role>;
/**
 * The state of a token.
 *
 * @generated from enum flotilla.v1.TokenState
 */
export declare enum TokenState {
    /**
     * Never set by the server.
     *
     * @generated from enum value: TOKEN_STATE_UNSPECIFIED = 0;
     */
    UNSPECIFIED = 0,
    /**
     * The token authenticates calls.
     *
     * @generated from enum value: TOKEN_STATE_ACTIVE = 1;
     */
    ACTIVE = 1,
    /**
     * The token's expire_time has passed.
     *
     * @generated from enum value: TOKEN_STATE_EXPIRED = 2;
     */
    EXPIRED = 2,
    /**
     * The token was revoked (or, for agent tokens, rotated).
     *
     * @generated from enum value: TOKEN_STATE_REVOKED = 3;
     */
    REVOKED = 3
}
/**
 * Describes the enum flotilla.v1.TokenState.
 */
export declare const TokenStateSchema: GenEnum<TokenState>;
/**
 * Manages access tokens. Every method but GetCurrentToken is for admins.
 *
 * @generated from service flotilla.v1.AccessService
 */
export declare const AccessService: GenService<{
    /**
     * Creates a token; its secret is in the response, and only there.
     *
     * @generated from rpc flotilla.v1.AccessService.CreateToken
     */
    createToken: {
        methodKind: "unary";
        input: typeof CreateTokenRequestSchema;
        output: typeof TokenSchema;
    };
    /**
     * Gets a token (never its secret).
     *
     * @generated from rpc flotilla.v1.AccessService.GetToken
     */
    getToken: {
        methodKind: "unary";
        input: typeof GetTokenRequestSchema;
        output: typeof TokenSchema;
    };
    /**
     * Lists tokens, newest first (never their secrets).
     *
     * @generated from rpc flotilla.v1.AccessService.ListTokens
     */
    listTokens: {
        methodKind: "unary";
        input: typeof ListTokensRequestSchema;
        output: typeof ListTokensResponseSchema;
    };
    /**
     * Revokes a token: the next call with it is UNAUTHENTICATED, and its open streams
     * end with UNAUTHENTICATED.
     *
     * @generated from rpc flotilla.v1.AccessService.RevokeToken
     */
    revokeToken: {
        methodKind: "unary";
        input: typeof RevokeTokenRequestSchema;
        output: typeof TokenSchema;
    };
    /**
     * The token the caller presents (any role): who the server takes the caller for.
     *
     * @generated from rpc flotilla.v1.AccessService.GetCurrentToken
     */
    getCurrentToken: {
        methodKind: "unary";
        input: typeof GetCurrentTokenRequestSchema;
        output: typeof TokenSchema;
    };
}>;
