import type { GenExtension, GenFile, GenMessage } from "@bufbuild/protobuf/codegenv2";
import type { MessageOptions } from "@bufbuild/protobuf/wkt";
import type { Message } from "@bufbuild/protobuf";
/**
 * Describes the file google/api/resource.proto.
 */
export declare const file_google_api_resource: GenFile;
/**
 * What a resource message is: its type, its name pattern and its collection names.
 *
 * @generated from message google.api.ResourceDescriptor
 */
export type ResourceDescriptor = Message<"google.api.ResourceDescriptor"> & {
    /**
     * `{service}/{Kind}`, e.g. `flotilla.v1/Project`.
     *
     * @generated from field: string type = 1;
     */
    type: string;
    /**
     * The resource name pattern(s), e.g. `projects/{project}`.
     *
     * @generated from field: repeated string pattern = 2;
     */
    pattern: string[];
    /**
     * The plural, lowerCamelCase, e.g. `compositeApps`.
     *
     * @generated from field: string plural = 5;
     */
    plural: string;
    /**
     * The singular, lowerCamelCase, e.g. `compositeApp`.
     *
     * @generated from field: string singular = 6;
     */
    singular: string;
};
/**
 * Describes the message google.api.ResourceDescriptor.
 * Use `create(ResourceDescriptorSchema)` to create a new message.
 */
export declare const ResourceDescriptorSchema: GenMessage<ResourceDescriptor>;
/**
 * The resource a message is.
 *
 * @generated from extension: google.api.ResourceDescriptor resource = 1053;
 */
export declare const resource: GenExtension<MessageOptions, ResourceDescriptor>;
