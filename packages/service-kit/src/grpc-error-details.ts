import { Any, BadRequest, ErrorInfo, RetryInfo, type ErrorDetails } from 'nice-grpc-error-details';
// google.rpc.Status, the message the details travel in (generated code the package does not re-export).
import { Status as RpcStatus } from 'nice-grpc-error-details/lib/proto/google/rpc/status.js';

/**
 * The trailer in which a failed call's google.rpc.Status, with its details, travels: the format
 * of nice-grpc-error-details' middleware, encoded and decoded here by the platform's own single
 * middleware on each side (grpc-server.ts, grpc-client.ts) instead of by two more layers.
 */
export const DETAILS_TRAILER = 'grpc-status-details-bin';

/** The detail messages the platform sends and reads (SPEC error code, field issues, retry delay). */
const KNOWN = [ErrorInfo, BadRequest, RetryInfo] as const;

/** The trailer's value for an error with these details. */
export function encodeStatusDetails(code: number, message: string, details: readonly ErrorDetails[]): Uint8Array {
  const packed = details.map((detail) => {
    if (detail.$type === Any.$type) return detail;
    const type = KNOWN.find((known) => known.$type === detail.$type);
    if (!type) throw new Error(`Unknown error details type: ${detail.$type}`);
    return Any.fromPartial({
      typeUrl: `type.googleapis.com/${detail.$type}`,
      value: (type as { encode(message: unknown): { finish(): Uint8Array } }).encode(detail).finish(),
    });
  });
  return RpcStatus.encode(RpcStatus.fromPartial({ code, message, details: packed })).finish();
}

/** The details of the trailer's google.rpc.Status; a type not known here stays an `Any`. */
export function decodeStatusDetails(encoded: Uint8Array): ErrorDetails[] {
  return RpcStatus.decode(encoded).details.map((value) => {
    const type = KNOWN.find((known) => value.typeUrl.endsWith(`/${known.$type}`));
    return type ? type.decode(value.value) : value;
  });
}
