/** The error codes the API answers with (docs/api-guide.md, "Errors you should handle", docs/design.md section 3). */
export type ApiErrorCode =
  | 'validation_error'
  | 'unauthorized'
  | 'insufficient_credits'
  | 'forbidden'
  | 'not_found'
  | 'conflict'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'rate_limit_exceeded'
  | 'internal_error'
  | 'service_unavailable'
  | (string & {});

export interface ApiErrorDetail {
  field: string;
  message: string;
  /** Shape B (`/v1`) only. */
  reason?: string;
}

/** The flat error body of `/api/v1` (shape A). */
export interface ApiErrorBody {
  error: ApiErrorCode;
  message: string;
  details?: ApiErrorDetail[];
  retry_after?: number;
}

/** An error answer of the API, with the body's code, message and field details. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: ApiErrorCode,
    message: string,
    readonly details: ApiErrorDetail[] = [],
    /** Seconds to wait before retrying (429). */
    readonly retryAfter?: number,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The details naming one field, e.g. `events[1]`. */
  detail(field: string): ApiErrorDetail | undefined {
    return this.details.find((d) => d.field === field);
  }
}

/** The request could not be made or answered (network error, timeout, a body that is not JSON). */
export class ApiConnectionError extends Error {
  constructor(message: string, cause?: unknown) {
    super(message, { cause });
    this.name = 'ApiConnectionError';
  }
}

/** Reads an error body of either shape into an ApiError. */
export function toApiError(status: number, body: unknown, headers: { get(name: string): string | null }): ApiError {
  const requestId = headers.get('x-request-id') ?? undefined;
  const headerRetry = headers.get('retry-after');
  if (body && typeof body === 'object') {
    const flat = body as Partial<ApiErrorBody>;
    if (typeof flat.error === 'string') {
      return new ApiError(
        status,
        flat.error,
        flat.message ?? flat.error,
        flat.details ?? [],
        flat.retry_after,
        requestId,
      );
    }
    const envelope = body as {
      error?: { code?: string; message?: string; details?: ApiErrorDetail[]; retry_after?: number };
    };
    if (envelope.error && typeof envelope.error === 'object' && typeof envelope.error.code === 'string') {
      return new ApiError(
        status,
        envelope.error.code,
        envelope.error.message ?? envelope.error.code,
        envelope.error.details ?? [],
        envelope.error.retry_after,
        requestId,
      );
    }
  }
  return new ApiError(
    status,
    status >= 500 ? 'internal_error' : 'unknown_error',
    `HTTP ${status}`,
    [],
    headerRetry && /^\d+$/.test(headerRetry) ? Number(headerRetry) : undefined,
    requestId,
  );
}
