import { HealthCheckRequest, HealthCheckResponse } from 'nice-grpc-server-health/lib/proto/grpc/health/v1/health';

/**
 * A unary method for the specs' one-method gRPC services, reusing the health messages: real
 * server and client code paths without a proto of their own.
 */
export const unaryHealthMethod = <N extends string>(name: N) =>
  ({
    name,
    requestType: HealthCheckRequest,
    requestStream: false,
    responseType: HealthCheckResponse,
    responseStream: false,
    options: {},
  }) as const;
