import type { GenFile, GenMessage } from "@bufbuild/protobuf/codegenv2";
import type { Any } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file google/rpc/status.proto.
 */
export declare const file_google_rpc_status: GenFile;
/**
 * The logical error model of gRPC: a code, a developer-facing message and details.
 *
 * @generated from message google.rpc.Status
 */
export type Status = Message<"google.rpc.Status"> & {
    /**
     * The status code, a value of google.rpc.Code.
     *
     * @generated from field: int32 code = 1;
     */
    code: number;
    /**
     * A developer-facing error message in English.
     *
     * @generated from field: string message = 2;
     */
    message: string;
    /**
     * Error details: ErrorInfo, BadRequest, PreconditionFailure, ResourceInfo, ...
     *
     * @generated from field: repeated google.protobuf.Any details = 3;
     */
    details: Any[];
};
/**
 * Describes the message google.rpc.Status.
 * Use `create(StatusSchema)` to create a new message.
 */
export declare const StatusSchema: GenMessage<Status>;
