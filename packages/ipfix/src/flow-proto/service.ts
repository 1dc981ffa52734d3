import type { ServiceDefinition } from '@grpc/grpc-js';
import { FLOW_PROTO_PACKAGE } from './descriptor.js';
import { decodeExportRequest, encodeExportResponse } from './flow-message.js';

/** Antrea's FlowAggregator gRPC port (the flow-aggregator Service's `grpc` port). */
export const FLOW_GRPC_PORT = 14739;

const asBuffer = (b: Uint8Array): Buffer =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/**
 * `service FlowExportService { rpc Export(stream ExportRequest) returns (ExportResponse) }` for
 * @grpc/grpc-js. The client writes ExportRequest bytes it encoded itself (one encoding per batch);
 * the server hands the handler each request's decoded `Flow` objects.
 */
export const flowExportServiceDefinition: ServiceDefinition = {
  Export: {
    path: `/${FLOW_PROTO_PACKAGE}.FlowExportService/Export`,
    requestStream: true,
    responseStream: false,
    requestSerialize: (b: Uint8Array) => asBuffer(b),
    requestDeserialize: (b: Buffer) => decodeExportRequest(b),
    responseSerialize: () => asBuffer(encodeExportResponse()),
    responseDeserialize: () => ({}),
  },
};
