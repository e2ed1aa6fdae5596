import { Status } from 'nice-grpc-common';

/**
 * The error codes of docs/api-guide.md ("Errors you should handle") and docs/design.md section 3,
 * with the gRPC status a service answers and the HTTP status the gateway answers for each. One
 * table, used at both edges.
 */
export const ERROR_CODES = {
  validation_error: { grpc: Status.INVALID_ARGUMENT, http: 400 },
  unauthorized: { grpc: Status.UNAUTHENTICATED, http: 401 },
  insufficient_credits: { grpc: Status.FAILED_PRECONDITION, http: 402 },
  forbidden: { grpc: Status.PERMISSION_DENIED, http: 403 },
  quota_exceeded: { grpc: Status.PERMISSION_DENIED, http: 403 },
  not_found: { grpc: Status.NOT_FOUND, http: 404 },
  method_not_allowed: { grpc: Status.UNIMPLEMENTED, http: 405 },
  conflict: { grpc: Status.ABORTED, http: 409 },
  payload_too_large: { grpc: Status.INVALID_ARGUMENT, http: 413 },
  unsupported_media_type: { grpc: Status.INVALID_ARGUMENT, http: 415 },
  rate_limit_exceeded: { grpc: Status.RESOURCE_EXHAUSTED, http: 429 },
  internal_error: { grpc: Status.INTERNAL, http: 500 },
  service_unavailable: { grpc: Status.UNAVAILABLE, http: 503 },
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

export interface FieldIssue {
  field: string;
  message: string;
}

/** A failure the caller can act on. Use cases throw these; only the edges map them to statuses. */
export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: FieldIssue[] = [],
    /** Seconds the caller should wait (rate limits). */
    readonly retryAfter?: number,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export class ValidationError extends DomainError {
  constructor(details: FieldIssue[], message = 'Request validation failed') {
    super('validation_error', message, details);
  }

  static field(field: string, message: string): ValidationError {
    return new ValidationError([{ field, message }]);
  }
}

/**
 * A gRPC request's tenant: calls on a tenant's data must name it; an empty `tenant_id` is a
 * caller's bug, never "all tenants". For the transports (identity's; workflow's `tenant()` is the
 * same rule).
 */
export function requireTenant(tenantId: string): string {
  if (!tenantId) throw ValidationError.field('tenant_id', 'is required');
  return tenantId;
}

/**
 * A call whose answer was lost: it ran out of time, or its connection failed, with no answer from
 * the other side, which may have performed it all the same. Whoever retries writes must not take
 * it as "not done" (the gateway's Idempotency-Key keeps its record: docs/api-guide.md).
 */
export class AnswerLostError extends DomainError {
  constructor(message: string, retryAfter: number) {
    super('service_unavailable', message, [], retryAfter);
  }
}

export class NotFoundError extends DomainError {
  constructor(resource: string) {
    super('not_found', `${resource} not found`);
  }
}

export class ConflictError extends DomainError {
  constructor(message: string) {
    super('conflict', message);
  }
}

export class ForbiddenError extends DomainError {
  constructor(message = 'Insufficient permissions') {
    super('forbidden', message);
  }
}

export class UnauthorizedError extends DomainError {
  constructor(message = 'Invalid or expired credentials') {
    super('unauthorized', message);
  }
}

export class InsufficientCreditsError extends DomainError {
  constructor(message = 'Not enough credits for this operation') {
    super('insufficient_credits', message);
  }
}

export function isErrorCode(value: string): value is ErrorCode {
  return Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** The error code a gRPC status stands for when a call carries no explicit code. */
export function errorCodeForGrpcStatus(status: Status): ErrorCode {
  switch (status) {
    case Status.INVALID_ARGUMENT:
    case Status.OUT_OF_RANGE:
      return 'validation_error';
    case Status.UNAUTHENTICATED:
      return 'unauthorized';
    case Status.PERMISSION_DENIED:
      return 'forbidden';
    case Status.NOT_FOUND:
      return 'not_found';
    case Status.ALREADY_EXISTS:
    case Status.ABORTED:
    case Status.FAILED_PRECONDITION:
      return 'conflict';
    case Status.RESOURCE_EXHAUSTED:
      return 'rate_limit_exceeded';
    case Status.UNAVAILABLE:
    case Status.DEADLINE_EXCEEDED:
      return 'service_unavailable';
    default:
      return 'internal_error';
  }
}
