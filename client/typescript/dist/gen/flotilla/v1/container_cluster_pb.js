// ContainerClusterService: container clusters provisioned on an IaaS with the
// CloudStack container service state machine (seed 001) and Cluster API style
// infrastructure provider objects (seed 004).
import { enumDesc, fileDesc, messageDesc, serviceDesc } from "@bufbuild/protobuf/codegenv2";
import { file_flotilla_v1_common } from "./common_pb.js";
import { file_flotilla_v1_lifecycle } from "./lifecycle_pb.js";
import { file_google_protobuf_empty, file_google_protobuf_timestamp } from "@bufbuild/protobuf/wkt";
/**
 * Describes the file flotilla/v1/container_cluster.proto.
 */
export const file_flotilla_v1_container_cluster = /*@__PURE__*/ fileDesc("CiNmbG90aWxsYS92MS9jb250YWluZXJfY2x1c3Rlci5wcm90bxILZmxvdGlsbGEudjEiZwoVU2ltSW5mcmFzdHJ1Y3R1cmVTcGVjEg8KB3pvbmVfaWQYASABKAkSGwoTc2VydmljZV9vZmZlcmluZ19pZBgCIAEoCRIMCgRzaXplGAMgASgFEhIKCm5ldHdvcmtfaWQYBCABKAkihQIKEVNpbUluZnJhc3RydWN0dXJlEgwKBG5hbWUYASABKAkSMAoEc3BlYxgCIAEoCzIiLmZsb3RpbGxhLnYxLlNpbUluZnJhc3RydWN0dXJlU3BlYxINCgVvd25lchgDIAEoCRIxCgZzdGF0dXMYBCABKAsyIS5mbG90aWxsYS52MS5JbmZyYXN0cnVjdHVyZVN0YXR1cxIMCgRldGFnGAUgASgJEi8KC2NyZWF0ZV90aW1lGAYgASgLMhouZ29vZ2xlLnByb3RvYnVmLlRpbWVzdGFtcBIvCgt1cGRhdGVfdGltZRgHIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXAijwEKHkNyZWF0ZVNpbUluZnJhc3RydWN0dXJlUmVxdWVzdBIdChVzaW1faW5mcmFzdHJ1Y3R1cmVfaWQYASABKAkSOgoSc2ltX2luZnJhc3RydWN0dXJlGAIgASgLMh4uZmxvdGlsbGEudjEuU2ltSW5mcmFzdHJ1Y3R1cmUSEgoKcmVxdWVzdF9pZBgDIAEoCSIrChtHZXRTaW1JbmZyYXN0cnVjdHVyZVJlcXVlc3QSDAoEbmFtZRgBIAEoCSJGCh1MaXN0U2ltSW5mcmFzdHJ1Y3R1cmVzUmVxdWVzdBIRCglwYWdlX3NpemUYASABKAUSEgoKcGFnZV90b2tlbhgCIAEoCSJ2Ch5MaXN0U2ltSW5mcmFzdHJ1Y3R1cmVzUmVzcG9uc2USOwoTc2ltX2luZnJhc3RydWN0dXJlcxgBIAMoCzIeLmZsb3RpbGxhLnYxLlNpbUluZnJhc3RydWN0dXJlEhcKD25leHRfcGFnZV90b2tlbhgCIAEoCSI8Ch5EZWxldGVTaW1JbmZyYXN0cnVjdHVyZVJlcXVlc3QSDAoEbmFtZRgBIAEoCRIMCgRldGFnGAIgASgJIjUKBFpvbmUSCgoCaWQYASABKAkSDAoEbmFtZRgCIAEoCRITCgt2bV9jYXBhY2l0eRgDIAEoAyISChBMaXN0Wm9uZXNSZXF1ZXN0IjUKEUxpc3Rab25lc1Jlc3BvbnNlEiAKBXpvbmVzGAEgAygLMhEuZmxvdGlsbGEudjEuWm9uZSJNCg9TZXJ2aWNlT2ZmZXJpbmcSCgoCaWQYASABKAkSDAoEbmFtZRgCIAEoCRIMCgRjcHVzGAMgASgDEhIKCm1lbW9yeV9taWIYBCABKAMiHQobTGlzdFNlcnZpY2VPZmZlcmluZ3NSZXF1ZXN0IlcKHExpc3RTZXJ2aWNlT2ZmZXJpbmdzUmVzcG9uc2USNwoRc2VydmljZV9vZmZlcmluZ3MYASADKAsyHC5mbG90aWxsYS52MS5TZXJ2aWNlT2ZmZXJpbmcixQEKFEluZnJhc3RydWN0dXJlU3RhdHVzEg0KBXJlYWR5GAEgASgIEhAKCGVuZHBvaW50GAIgASgJEi8KBXBoYXNlGAMgASgOMiAuZmxvdGlsbGEudjEuSW5mcmFzdHJ1Y3R1cmVQaGFzZRIWCg5mYWlsdXJlX3JlYXNvbhgEIAEoCRIXCg9mYWlsdXJlX21lc3NhZ2UYBSABKAkSKgoKY29uZGl0aW9ucxgGIAMoCzIWLmZsb3RpbGxhLnYxLkNvbmRpdGlvbiJUChJDb250YWluZXJDbHVzdGVyVm0SDQoFdm1faWQYASABKAkSDAoEbmFtZRgCIAEoCRINCgVzdGF0ZRgDIAEoCRISCgppcF9hZGRyZXNzGAQgASgJIvAFChBDb250YWluZXJDbHVzdGVyEgwKBG5hbWUYASABKAkSCgoCaWQYAiABKAkSFAoMZGlzcGxheV9uYW1lGAMgASgJEhMKC2Rlc2NyaXB0aW9uGAQgASgJEg8KB3pvbmVfaWQYBSABKAkSGwoTc2VydmljZV9vZmZlcmluZ19pZBgGIAEoCRIMCgRzaXplGAcgASgFEhQKDGFjY291bnRfbmFtZRgIIAEoCRIRCglkb21haW5faWQYCSABKAkSEgoKbmV0d29ya19pZBgKIAEoCRIaChJpbmZyYXN0cnVjdHVyZV9yZWYYCyABKAkSEAoIZW5kcG9pbnQYDCABKAkSGAoQY29uc29sZV9lbmRwb2ludBgNIAEoCRIxCgVzdGF0ZRgOIAEoDjIiLmZsb3RpbGxhLnYxLkNvbnRhaW5lckNsdXN0ZXJTdGF0ZRIvCgVwaGFzZRgPIAEoDjIgLmZsb3RpbGxhLnYxLkluZnJhc3RydWN0dXJlUGhhc2USKgoKY29uZGl0aW9ucxgQIAMoCzIWLmZsb3RpbGxhLnYxLkNvbmRpdGlvbhIsCgN2bXMYESADKAsyHy5mbG90aWxsYS52MS5Db250YWluZXJDbHVzdGVyVm0SQAoVaW5mcmFzdHJ1Y3R1cmVfc3RhdHVzGBIgASgLMiEuZmxvdGlsbGEudjEuSW5mcmFzdHJ1Y3R1cmVTdGF0dXMSDAoEZXRhZxgTIAEoCRIvCgtjcmVhdGVfdGltZRgUIAEoCzIaLmdvb2dsZS5wcm90b2J1Zi5UaW1lc3RhbXASLwoLdXBkYXRlX3RpbWUYFSABKAsyGi5nb29nbGUucHJvdG9idWYuVGltZXN0YW1wEjQKD3JlY292ZXJ5X3BvbGljeRgWIAEoDjIbLmZsb3RpbGxhLnYxLlJlY292ZXJ5UG9saWN5EhQKDGF1dG9fcmVjb3ZlchgXIAEoCBIaChJyZWdpc3RlcmVkX2NsdXN0ZXIYGCABKAkiRgoTUmVnaXN0cnlDcmVkZW50aWFscxILCgN1cmwYASABKAkSEAoIdXNlcm5hbWUYAiABKAkSEAoIcGFzc3dvcmQYAyABKAkioQEKHUNyZWF0ZUNvbnRhaW5lckNsdXN0ZXJSZXF1ZXN0EjgKEWNvbnRhaW5lcl9jbHVzdGVyGAEgASgLMh0uZmxvdGlsbGEudjEuQ29udGFpbmVyQ2x1c3RlchISCgpyZXF1ZXN0X2lkGAIgASgJEjIKCHJlZ2lzdHJ5GAMgASgLMiAuZmxvdGlsbGEudjEuUmVnaXN0cnlDcmVkZW50aWFscyIqChpHZXRDb250YWluZXJDbHVzdGVyUmVxdWVzdBIMCgRuYW1lGAEgASgJIp8BChxMaXN0Q29udGFpbmVyQ2x1c3RlcnNSZXF1ZXN0EhEKCXBhZ2Vfc2l6ZRgBIAEoBRISCgpwYWdlX3Rva2VuGAIgASgJEjEKBXN0YXRlGAMgASgOMiIuZmxvdGlsbGEudjEuQ29udGFpbmVyQ2x1c3RlclN0YXRlEg8KB3pvbmVfaWQYBCABKAkSFAoMYWNjb3VudF9uYW1lGAUgASgJInMKHUxpc3RDb250YWluZXJDbHVzdGVyc1Jlc3BvbnNlEjkKEmNvbnRhaW5lcl9jbHVzdGVycxgBIAMoCzIdLmZsb3RpbGxhLnYxLkNvbnRhaW5lckNsdXN0ZXISFwoPbmV4dF9wYWdlX3Rva2VuGAIgASgJIkAKHFN0YXJ0Q29udGFpbmVyQ2x1c3RlclJlcXVlc3QSDAoEbmFtZRgBIAEoCRISCgpyZXF1ZXN0X2lkGAIgASgJIj8KG1N0b3BDb250YWluZXJDbHVzdGVyUmVxdWVzdBIMCgRuYW1lGAEgASgJEhIKCnJlcXVlc3RfaWQYAiABKAkiTgocU2NhbGVDb250YWluZXJDbHVzdGVyUmVxdWVzdBIMCgRuYW1lGAEgASgJEgwKBHNpemUYAiABKAUSEgoKcmVxdWVzdF9pZBgDIAEoCSJCCh5SZWNvdmVyQ29udGFpbmVyQ2x1c3RlclJlcXVlc3QSDAoEbmFtZRgBIAEoCRISCgpyZXF1ZXN0X2lkGAIgASgJIkEKHURlbGV0ZUNvbnRhaW5lckNsdXN0ZXJSZXF1ZXN0EgwKBG5hbWUYASABKAkSEgoKcmVxdWVzdF9pZBgCIAEoCSJpCh1XYXRjaENvbnRhaW5lckNsdXN0ZXJzUmVxdWVzdBIUCgxyZXN1bWVfdG9rZW4YASABKAkSMgoGc3RhdGVzGAIgAygOMiIuZmxvdGlsbGEudjEuQ29udGFpbmVyQ2x1c3RlclN0YXRlIp0BChVDb250YWluZXJDbHVzdGVyRXZlbnQSNAoEdHlwZRgBIAEoDjImLmZsb3RpbGxhLnYxLkNvbnRhaW5lckNsdXN0ZXJFdmVudFR5cGUSOAoRY29udGFpbmVyX2NsdXN0ZXIYAiABKAsyHS5mbG90aWxsYS52MS5Db250YWluZXJDbHVzdGVyEhQKDHJlc3VtZV90b2tlbhgDIAEoCSJUCh5XYXRjaENvbnRhaW5lckNsdXN0ZXJzUmVzcG9uc2USMgoGZXZlbnRzGAEgAygLMiIuZmxvdGlsbGEudjEuQ29udGFpbmVyQ2x1c3RlckV2ZW50IjUKJUdldENvbnRhaW5lckNsdXN0ZXJDcmVkZW50aWFsc1JlcXVlc3QSDAoEbmFtZRgBIAEoCSKmAQobQ29udGFpbmVyQ2x1c3RlckNyZWRlbnRpYWxzEgwKBG5hbWUYASABKAkSEgoKa3ViZWNvbmZpZxgCIAEoCRIQCgh1c2VybmFtZRgDIAEoCRIQCghwYXNzd29yZBgEIAEoCRINCgV0b2tlbhgFIAEoCRIyCghyZWdpc3RyeRgGIAEoCzIgLmZsb3RpbGxhLnYxLlJlZ2lzdHJ5Q3JlZGVudGlhbHMizAEKH1JlZ2lzdGVyQ29udGFpbmVyQ2x1c3RlclJlcXVlc3QSDAoEbmFtZRgBIAEoCRIOCgZwYXJlbnQYAiABKAkSEgoKY2x1c3Rlcl9pZBgDIAEoCRJICgZsYWJlbHMYBCADKAsyOC5mbG90aWxsYS52MS5SZWdpc3RlckNvbnRhaW5lckNsdXN0ZXJSZXF1ZXN0LkxhYmVsc0VudHJ5Gi0KC0xhYmVsc0VudHJ5EgsKA2tleRgBIAEoCRINCgV2YWx1ZRgCIAEoCToCOAEqnQEKDlJlY292ZXJ5UG9saWN5Eh8KG1JFQ09WRVJZX1BPTElDWV9VTlNQRUNJRklFRBAAEhgKFFJFQ09WRVJZX1BPTElDWV9OT05FEAESIwofUkVDT1ZFUllfUE9MSUNZX1JFU1RBUlRfU1RPUFBFRBACEisKJ1JFQ09WRVJZX1BPTElDWV9SRVNUQVJUX0FORF9SRVBST1ZJU0lPThADKt4DChVDb250YWluZXJDbHVzdGVyU3RhdGUSJwojQ09OVEFJTkVSX0NMVVNURVJfU1RBVEVfVU5TUEVDSUZJRUQQABIjCh9DT05UQUlORVJfQ0xVU1RFUl9TVEFURV9DUkVBVEVEEAESJAogQ09OVEFJTkVSX0NMVVNURVJfU1RBVEVfU1RBUlRJTkcQAhIjCh9DT05UQUlORVJfQ0xVU1RFUl9TVEFURV9SVU5OSU5HEAMSJAogQ09OVEFJTkVSX0NMVVNURVJfU1RBVEVfU1RPUFBJTkcQBBIjCh9DT05UQUlORVJfQ0xVU1RFUl9TVEFURV9TVE9QUEVEEAUSIwofQ09OVEFJTkVSX0NMVVNURVJfU1RBVEVfU0NBTElORxAGEiEKHUNPTlRBSU5FUl9DTFVTVEVSX1NUQVRFX0FMRVJUEAcSJgoiQ09OVEFJTkVSX0NMVVNURVJfU1RBVEVfUkVDT1ZFUklORxAIEiUKIUNPTlRBSU5FUl9DTFVTVEVSX1NUQVRFX0VYUFVOR0lORxAJEiMKH0NPTlRBSU5FUl9DTFVTVEVSX1NUQVRFX0VYUFVOR0UQChIlCiFDT05UQUlORVJfQ0xVU1RFUl9TVEFURV9ERVNUUk9ZRUQQCyruAQoTSW5mcmFzdHJ1Y3R1cmVQaGFzZRIkCiBJTkZSQVNUUlVDVFVSRV9QSEFTRV9VTlNQRUNJRklFRBAAEiAKHElORlJBU1RSVUNUVVJFX1BIQVNFX1BFTkRJTkcQARIlCiFJTkZSQVNUUlVDVFVSRV9QSEFTRV9QUk9WSVNJT05JTkcQAhIkCiBJTkZSQVNUUlVDVFVSRV9QSEFTRV9QUk9WSVNJT05FRBADEiEKHUlORlJBU1RSVUNUVVJFX1BIQVNFX0RFTEVUSU5HEAQSHwobSU5GUkFTVFJVQ1RVUkVfUEhBU0VfRkFJTEVEEAUqzQIKGUNvbnRhaW5lckNsdXN0ZXJFdmVudFR5cGUSLAooQ09OVEFJTkVSX0NMVVNURVJfRVZFTlRfVFlQRV9VTlNQRUNJRklFRBAAEiYKIkNPTlRBSU5FUl9DTFVTVEVSX0VWRU5UX1RZUEVfQURERUQQARIpCiVDT05UQUlORVJfQ0xVU1RFUl9FVkVOVF9UWVBFX01PRElGSUVEEAISKAokQ09OVEFJTkVSX0NMVVNURVJfRVZFTlRfVFlQRV9ERUxFVEVEEAMSJwojQ09OVEFJTkVSX0NMVVNURVJfRVZFTlRfVFlQRV9TWU5DRUQQBBIwCixDT05UQUlORVJfQ0xVU1RFUl9FVkVOVF9UWVBFX1JFU1lOQ19SRVFVSVJFRBAFEioKJkNPTlRBSU5FUl9DTFVTVEVSX0VWRU5UX1RZUEVfSEVBUlRCRUFUEAYy5A0KF0NvbnRhaW5lckNsdXN0ZXJTZXJ2aWNlEmMKFkNyZWF0ZUNvbnRhaW5lckNsdXN0ZXISKi5mbG90aWxsYS52MS5DcmVhdGVDb250YWluZXJDbHVzdGVyUmVxdWVzdBodLmZsb3RpbGxhLnYxLkNvbnRhaW5lckNsdXN0ZXISXQoTR2V0Q29udGFpbmVyQ2x1c3RlchInLmZsb3RpbGxhLnYxLkdldENvbnRhaW5lckNsdXN0ZXJSZXF1ZXN0Gh0uZmxvdGlsbGEudjEuQ29udGFpbmVyQ2x1c3RlchJuChVMaXN0Q29udGFpbmVyQ2x1c3RlcnMSKS5mbG90aWxsYS52MS5MaXN0Q29udGFpbmVyQ2x1c3RlcnNSZXF1ZXN0GiouZmxvdGlsbGEudjEuTGlzdENvbnRhaW5lckNsdXN0ZXJzUmVzcG9uc2USYQoVU3RhcnRDb250YWluZXJDbHVzdGVyEikuZmxvdGlsbGEudjEuU3RhcnRDb250YWluZXJDbHVzdGVyUmVxdWVzdBodLmZsb3RpbGxhLnYxLkNvbnRhaW5lckNsdXN0ZXISXwoUU3RvcENvbnRhaW5lckNsdXN0ZXISKC5mbG90aWxsYS52MS5TdG9wQ29udGFpbmVyQ2x1c3RlclJlcXVlc3QaHS5mbG90aWxsYS52MS5Db250YWluZXJDbHVzdGVyEmEKFVNjYWxlQ29udGFpbmVyQ2x1c3RlchIpLmZsb3RpbGxhLnYxLlNjYWxlQ29udGFpbmVyQ2x1c3RlclJlcXVlc3QaHS5mbG90aWxsYS52MS5Db250YWluZXJDbHVzdGVyEmUKF1JlY292ZXJDb250YWluZXJDbHVzdGVyEisuZmxvdGlsbGEudjEuUmVjb3ZlckNvbnRhaW5lckNsdXN0ZXJSZXF1ZXN0Gh0uZmxvdGlsbGEudjEuQ29udGFpbmVyQ2x1c3RlchJcChZEZWxldGVDb250YWluZXJDbHVzdGVyEiouZmxvdGlsbGEudjEuRGVsZXRlQ29udGFpbmVyQ2x1c3RlclJlcXVlc3QaFi5nb29nbGUucHJvdG9idWYuRW1wdHkScwoWV2F0Y2hDb250YWluZXJDbHVzdGVycxIqLmZsb3RpbGxhLnYxLldhdGNoQ29udGFpbmVyQ2x1c3RlcnNSZXF1ZXN0GisuZmxvdGlsbGEudjEuV2F0Y2hDb250YWluZXJDbHVzdGVyc1Jlc3BvbnNlMAESfgoeR2V0Q29udGFpbmVyQ2x1c3RlckNyZWRlbnRpYWxzEjIuZmxvdGlsbGEudjEuR2V0Q29udGFpbmVyQ2x1c3RlckNyZWRlbnRpYWxzUmVxdWVzdBooLmZsb3RpbGxhLnYxLkNvbnRhaW5lckNsdXN0ZXJDcmVkZW50aWFscxJeChhSZWdpc3RlckNvbnRhaW5lckNsdXN0ZXISLC5mbG90aWxsYS52MS5SZWdpc3RlckNvbnRhaW5lckNsdXN0ZXJSZXF1ZXN0GhQuZmxvdGlsbGEudjEuQ2x1c3RlchJKCglMaXN0Wm9uZXMSHS5mbG90aWxsYS52MS5MaXN0Wm9uZXNSZXF1ZXN0Gh4uZmxvdGlsbGEudjEuTGlzdFpvbmVzUmVzcG9uc2USawoUTGlzdFNlcnZpY2VPZmZlcmluZ3MSKC5mbG90aWxsYS52MS5MaXN0U2VydmljZU9mZmVyaW5nc1JlcXVlc3QaKS5mbG90aWxsYS52MS5MaXN0U2VydmljZU9mZmVyaW5nc1Jlc3BvbnNlEmYKF0NyZWF0ZVNpbUluZnJhc3RydWN0dXJlEisuZmxvdGlsbGEudjEuQ3JlYXRlU2ltSW5mcmFzdHJ1Y3R1cmVSZXF1ZXN0Gh4uZmxvdGlsbGEudjEuU2ltSW5mcmFzdHJ1Y3R1cmUSYAoUR2V0U2ltSW5mcmFzdHJ1Y3R1cmUSKC5mbG90aWxsYS52MS5HZXRTaW1JbmZyYXN0cnVjdHVyZVJlcXVlc3QaHi5mbG90aWxsYS52MS5TaW1JbmZyYXN0cnVjdHVyZRJxChZMaXN0U2ltSW5mcmFzdHJ1Y3R1cmVzEiouZmxvdGlsbGEudjEuTGlzdFNpbUluZnJhc3RydWN0dXJlc1JlcXVlc3QaKy5mbG90aWxsYS52MS5MaXN0U2ltSW5mcmFzdHJ1Y3R1cmVzUmVzcG9uc2USXgoXRGVsZXRlU2ltSW5mcmFzdHJ1Y3R1cmUSKy5mbG90aWxsYS52MS5EZWxldGVTaW1JbmZyYXN0cnVjdHVyZVJlcXVlc3QaFi5nb29nbGUucHJvdG9idWYuRW1wdHliBnByb3RvMw", [file_flotilla_v1_common, file_flotilla_v1_lifecycle, file_google_protobuf_empty, file_google_protobuf_timestamp]);
/**
 * Describes the message flotilla.v1.SimInfrastructureSpec.
 * Use `create(SimInfrastructureSpecSchema)` to create a new message.
 */
export const SimInfrastructureSpecSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 0);
/**
 * Describes the message flotilla.v1.SimInfrastructure.
 * Use `create(SimInfrastructureSchema)` to create a new message.
 */
export const SimInfrastructureSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 1);
/**
 * Describes the message flotilla.v1.CreateSimInfrastructureRequest.
 * Use `create(CreateSimInfrastructureRequestSchema)` to create a new message.
 */
export const CreateSimInfrastructureRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 2);
/**
 * Describes the message flotilla.v1.GetSimInfrastructureRequest.
 * Use `create(GetSimInfrastructureRequestSchema)` to create a new message.
 */
export const GetSimInfrastructureRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 3);
/**
 * Describes the message flotilla.v1.ListSimInfrastructuresRequest.
 * Use `create(ListSimInfrastructuresRequestSchema)` to create a new message.
 */
export const ListSimInfrastructuresRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 4);
/**
 * Describes the message flotilla.v1.ListSimInfrastructuresResponse.
 * Use `create(ListSimInfrastructuresResponseSchema)` to create a new message.
 */
export const ListSimInfrastructuresResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 5);
/**
 * Describes the message flotilla.v1.DeleteSimInfrastructureRequest.
 * Use `create(DeleteSimInfrastructureRequestSchema)` to create a new message.
 */
export const DeleteSimInfrastructureRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 6);
/**
 * Describes the message flotilla.v1.Zone.
 * Use `create(ZoneSchema)` to create a new message.
 */
export const ZoneSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 7);
/**
 * Describes the message flotilla.v1.ListZonesRequest.
 * Use `create(ListZonesRequestSchema)` to create a new message.
 */
export const ListZonesRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 8);
/**
 * Describes the message flotilla.v1.ListZonesResponse.
 * Use `create(ListZonesResponseSchema)` to create a new message.
 */
export const ListZonesResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 9);
/**
 * Describes the message flotilla.v1.ServiceOffering.
 * Use `create(ServiceOfferingSchema)` to create a new message.
 */
export const ServiceOfferingSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 10);
/**
 * Describes the message flotilla.v1.ListServiceOfferingsRequest.
 * Use `create(ListServiceOfferingsRequestSchema)` to create a new message.
 */
export const ListServiceOfferingsRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 11);
/**
 * Describes the message flotilla.v1.ListServiceOfferingsResponse.
 * Use `create(ListServiceOfferingsResponseSchema)` to create a new message.
 */
export const ListServiceOfferingsResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 12);
/**
 * Describes the message flotilla.v1.InfrastructureStatus.
 * Use `create(InfrastructureStatusSchema)` to create a new message.
 */
export const InfrastructureStatusSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 13);
/**
 * Describes the message flotilla.v1.ContainerClusterVm.
 * Use `create(ContainerClusterVmSchema)` to create a new message.
 */
export const ContainerClusterVmSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 14);
/**
 * Describes the message flotilla.v1.ContainerCluster.
 * Use `create(ContainerClusterSchema)` to create a new message.
 */
export const ContainerClusterSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 15);
/**
 * Describes the message flotilla.v1.RegistryCredentials.
 * Use `create(RegistryCredentialsSchema)` to create a new message.
 */
export const RegistryCredentialsSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 16);
/**
 * Describes the message flotilla.v1.CreateContainerClusterRequest.
 * Use `create(CreateContainerClusterRequestSchema)` to create a new message.
 */
export const CreateContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 17);
/**
 * Describes the message flotilla.v1.GetContainerClusterRequest.
 * Use `create(GetContainerClusterRequestSchema)` to create a new message.
 */
export const GetContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 18);
/**
 * Describes the message flotilla.v1.ListContainerClustersRequest.
 * Use `create(ListContainerClustersRequestSchema)` to create a new message.
 */
export const ListContainerClustersRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 19);
/**
 * Describes the message flotilla.v1.ListContainerClustersResponse.
 * Use `create(ListContainerClustersResponseSchema)` to create a new message.
 */
export const ListContainerClustersResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 20);
/**
 * Describes the message flotilla.v1.StartContainerClusterRequest.
 * Use `create(StartContainerClusterRequestSchema)` to create a new message.
 */
export const StartContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 21);
/**
 * Describes the message flotilla.v1.StopContainerClusterRequest.
 * Use `create(StopContainerClusterRequestSchema)` to create a new message.
 */
export const StopContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 22);
/**
 * Describes the message flotilla.v1.ScaleContainerClusterRequest.
 * Use `create(ScaleContainerClusterRequestSchema)` to create a new message.
 */
export const ScaleContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 23);
/**
 * Describes the message flotilla.v1.RecoverContainerClusterRequest.
 * Use `create(RecoverContainerClusterRequestSchema)` to create a new message.
 */
export const RecoverContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 24);
/**
 * Describes the message flotilla.v1.DeleteContainerClusterRequest.
 * Use `create(DeleteContainerClusterRequestSchema)` to create a new message.
 */
export const DeleteContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 25);
/**
 * Describes the message flotilla.v1.WatchContainerClustersRequest.
 * Use `create(WatchContainerClustersRequestSchema)` to create a new message.
 */
export const WatchContainerClustersRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 26);
/**
 * Describes the message flotilla.v1.ContainerClusterEvent.
 * Use `create(ContainerClusterEventSchema)` to create a new message.
 */
export const ContainerClusterEventSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 27);
/**
 * Describes the message flotilla.v1.WatchContainerClustersResponse.
 * Use `create(WatchContainerClustersResponseSchema)` to create a new message.
 */
export const WatchContainerClustersResponseSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 28);
/**
 * Describes the message flotilla.v1.GetContainerClusterCredentialsRequest.
 * Use `create(GetContainerClusterCredentialsRequestSchema)` to create a new message.
 */
export const GetContainerClusterCredentialsRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 29);
/**
 * Describes the message flotilla.v1.ContainerClusterCredentials.
 * Use `create(ContainerClusterCredentialsSchema)` to create a new message.
 */
export const ContainerClusterCredentialsSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 30);
/**
 * Describes the message flotilla.v1.RegisterContainerClusterRequest.
 * Use `create(RegisterContainerClusterRequestSchema)` to create a new message.
 */
export const RegisterContainerClusterRequestSchema = /*@__PURE__*/ messageDesc(file_flotilla_v1_container_cluster, 31);
/**
 * What recovery does for a cluster in ALERT.
 *
 * @generated from enum flotilla.v1.RecoveryPolicy
 */
export var RecoveryPolicy;
(function (RecoveryPolicy) {
    /**
     * Not set: RECOVERY_POLICY_RESTART_AND_REPROVISION.
     *
     * @generated from enum value: RECOVERY_POLICY_UNSPECIFIED = 0;
     */
    RecoveryPolicy[RecoveryPolicy["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * No recovery: the cluster stays in ALERT until a user acts (stop, delete).
     *
     * @generated from enum value: RECOVERY_POLICY_NONE = 1;
     */
    RecoveryPolicy[RecoveryPolicy["NONE"] = 1] = "NONE";
    /**
     * Restart the VMs that stopped.
     *
     * @generated from enum value: RECOVERY_POLICY_RESTART_STOPPED = 2;
     */
    RecoveryPolicy[RecoveryPolicy["RESTART_STOPPED"] = 2] = "RESTART_STOPPED";
    /**
     * Restart the VMs that stopped and provision new ones for those the IaaS lost.
     *
     * @generated from enum value: RECOVERY_POLICY_RESTART_AND_REPROVISION = 3;
     */
    RecoveryPolicy[RecoveryPolicy["RESTART_AND_REPROVISION"] = 3] = "RESTART_AND_REPROVISION";
})(RecoveryPolicy || (RecoveryPolicy = {}));
/**
 * Describes the enum flotilla.v1.RecoveryPolicy.
 */
export const RecoveryPolicySchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_container_cluster, 0);
/**
 * The state of a container cluster (seed 001).
 *
 * @generated from enum flotilla.v1.ContainerClusterState
 */
export var ContainerClusterState;
(function (ContainerClusterState) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_UNSPECIFIED = 0;
     */
    ContainerClusterState[ContainerClusterState["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Recorded, not yet started.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_CREATED = 1;
     */
    ContainerClusterState[ContainerClusterState["CREATED"] = 1] = "CREATED";
    /**
     * Provisioning or starting VMs.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_STARTING = 2;
     */
    ContainerClusterState[ContainerClusterState["STARTING"] = 2] = "STARTING";
    /**
     * Running with every VM up.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_RUNNING = 3;
     */
    ContainerClusterState[ContainerClusterState["RUNNING"] = 3] = "RUNNING";
    /**
     * Stopping VMs.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_STOPPING = 4;
     */
    ContainerClusterState[ContainerClusterState["STOPPING"] = 4] = "STOPPING";
    /**
     * Every VM stopped.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_STOPPED = 5;
     */
    ContainerClusterState[ContainerClusterState["STOPPED"] = 5] = "STOPPED";
    /**
     * Adding or removing VMs.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_SCALING = 6;
     */
    ContainerClusterState[ContainerClusterState["SCALING"] = 6] = "SCALING";
    /**
     * Not in its desired state; see conditions.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_ALERT = 7;
     */
    ContainerClusterState[ContainerClusterState["ALERT"] = 7] = "ALERT";
    /**
     * Being recovered.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_RECOVERING = 8;
     */
    ContainerClusterState[ContainerClusterState["RECOVERING"] = 8] = "RECOVERING";
    /**
     * Releasing resources.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_EXPUNGING = 9;
     */
    ContainerClusterState[ContainerClusterState["EXPUNGING"] = 9] = "EXPUNGING";
    /**
     * Cleanup failed; the garbage collector retries.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_EXPUNGE = 10;
     */
    ContainerClusterState[ContainerClusterState["EXPUNGE"] = 10] = "EXPUNGE";
    /**
     * Gone.
     *
     * @generated from enum value: CONTAINER_CLUSTER_STATE_DESTROYED = 11;
     */
    ContainerClusterState[ContainerClusterState["DESTROYED"] = 11] = "DESTROYED";
})(ContainerClusterState || (ContainerClusterState = {}));
/**
 * Describes the enum flotilla.v1.ContainerClusterState.
 */
export const ContainerClusterStateSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_container_cluster, 1);
/**
 * The provisioning phase of an infrastructure object (seed 004).
 *
 * @generated from enum flotilla.v1.InfrastructurePhase
 */
export var InfrastructurePhase;
(function (InfrastructurePhase) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_UNSPECIFIED = 0;
     */
    InfrastructurePhase[InfrastructurePhase["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * Waiting to be provisioned.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_PENDING = 1;
     */
    InfrastructurePhase[InfrastructurePhase["PENDING"] = 1] = "PENDING";
    /**
     * Being provisioned.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_PROVISIONING = 2;
     */
    InfrastructurePhase[InfrastructurePhase["PROVISIONING"] = 2] = "PROVISIONING";
    /**
     * Provisioned.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_PROVISIONED = 3;
     */
    InfrastructurePhase[InfrastructurePhase["PROVISIONED"] = 3] = "PROVISIONED";
    /**
     * Being deleted.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_DELETING = 4;
     */
    InfrastructurePhase[InfrastructurePhase["DELETING"] = 4] = "DELETING";
    /**
     * Failed; see failure_reason.
     *
     * @generated from enum value: INFRASTRUCTURE_PHASE_FAILED = 5;
     */
    InfrastructurePhase[InfrastructurePhase["FAILED"] = 5] = "FAILED";
})(InfrastructurePhase || (InfrastructurePhase = {}));
/**
 * Describes the enum flotilla.v1.InfrastructurePhase.
 */
export const InfrastructurePhaseSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_container_cluster, 2);
/**
 * What a WatchContainerClusters event says.
 *
 * @generated from enum flotilla.v1.ContainerClusterEventType
 */
export var ContainerClusterEventType;
(function (ContainerClusterEventType) {
    /**
     * Never set by the server.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_UNSPECIFIED = 0;
     */
    ContainerClusterEventType[ContainerClusterEventType["UNSPECIFIED"] = 0] = "UNSPECIFIED";
    /**
     * A cluster was created; in a snapshot, a cluster that exists.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_ADDED = 1;
     */
    ContainerClusterEventType[ContainerClusterEventType["ADDED"] = 1] = "ADDED";
    /**
     * A cluster changed (its state, VMs, conditions, ...).
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_MODIFIED = 2;
     */
    ContainerClusterEventType[ContainerClusterEventType["MODIFIED"] = 2] = "MODIFIED";
    /**
     * A cluster was destroyed (container_cluster holds its last state, DESTROYED).
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_DELETED = 3;
     */
    ContainerClusterEventType[ContainerClusterEventType["DELETED"] = 3] = "DELETED";
    /**
     * The snapshot is complete; live events follow.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_SYNCED = 4;
     */
    ContainerClusterEventType[ContainerClusterEventType["SYNCED"] = 4] = "SYNCED";
    /**
     * The resume token is too old (or of a snapshot): a fresh snapshot follows.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_RESYNC_REQUIRED = 5;
     */
    ContainerClusterEventType[ContainerClusterEventType["RESYNC_REQUIRED"] = 5] = "RESYNC_REQUIRED";
    /**
     * Nothing happened for a while; carries the latest resume token.
     *
     * @generated from enum value: CONTAINER_CLUSTER_EVENT_TYPE_HEARTBEAT = 6;
     */
    ContainerClusterEventType[ContainerClusterEventType["HEARTBEAT"] = 6] = "HEARTBEAT";
})(ContainerClusterEventType || (ContainerClusterEventType = {}));
/**
 * Describes the enum flotilla.v1.ContainerClusterEventType.
 */
export const ContainerClusterEventTypeSchema = /*@__PURE__*/ enumDesc(file_flotilla_v1_container_cluster, 3);
/**
 * Provisions, heals and deletes container clusters.
 *
 * @generated from service flotilla.v1.ContainerClusterService
 */
export const ContainerClusterService = /*@__PURE__*/ serviceDesc(file_flotilla_v1_container_cluster, 0);
