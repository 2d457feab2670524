// The subset of googleapis' `google/api/resource.proto` (AIP-123) that Flotilla
// declares its resource kinds with: the same package, file name, extension number and
// field numbers, so any tool that knows the full definition reads these options too.
import { extDesc, fileDesc, messageDesc } from "@bufbuild/protobuf/codegenv2";
import { file_google_protobuf_descriptor } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file google/api/resource.proto.
 */
export const file_google_api_resource = /*@__PURE__*/ fileDesc("Chlnb29nbGUvYXBpL3Jlc291cmNlLnByb3RvEgpnb29nbGUuYXBpIlUKElJlc291cmNlRGVzY3JpcHRvchIMCgR0eXBlGAEgASgJEg8KB3BhdHRlcm4YAiADKAkSDgoGcGx1cmFsGAUgASgJEhAKCHNpbmd1bGFyGAYgASgJOlwKCHJlc291cmNlEh8uZ29vZ2xlLnByb3RvYnVmLk1lc3NhZ2VPcHRpb25zGJ0IIAEoCzIeLmdvb2dsZS5hcGkuUmVzb3VyY2VEZXNjcmlwdG9yUghyZXNvdXJjZUJDWkFnb29nbGUuZ29sYW5nLm9yZy9nZW5wcm90by9nb29nbGVhcGlzL2FwaS9hbm5vdGF0aW9uczthbm5vdGF0aW9uc2IGcHJvdG8z", [file_google_protobuf_descriptor]);
/**
 * Describes the message google.api.ResourceDescriptor.
 * Use `create(ResourceDescriptorSchema)` to create a new message.
 */
export const ResourceDescriptorSchema = /*@__PURE__*/ messageDesc(file_google_api_resource, 0);
/**
 * The resource a message is.
 *
 * @generated from extension: google.api.ResourceDescriptor resource = 1053;
 */
export const resource = /*@__PURE__*/ extDesc(file_google_api_resource, 0);
