export { GrpcJsUnaryTransport } from '../transport/grpc-js-unary-transport.js';
export { H2UnaryTransport } from '../transport/h2-unary-transport.js';
export * from './fake-cni-agent.js';
