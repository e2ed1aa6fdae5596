import type { DomainError, ErrorCode } from '@agentplatform/service-kit';
import type { ErrorShape } from '../../http/error-body.js';
import { UNSUPPORTED } from './openai.schemas.js';

/** Where OpenAI's clients are pointed (their base URL). */
export const OPENAI_PREFIX = '/openai/v1';

/** OpenAI's error `type` and `code` for each of the API's error codes (same HTTP statuses). */
const OPENAI_ERRORS: Partial<Record<ErrorCode, { type: string; code: string }>> = {
  unauthorized: { type: 'invalid_request_error', code: 'invalid_api_key' },
  forbidden: { type: 'permission_error', code: 'insufficient_permissions' },
  insufficient_credits: { type: 'insufficient_quota', code: 'insufficient_quota' },
  rate_limit_exceeded: { type: 'rate_limit_error', code: 'rate_limit_exceeded' },
  conflict: { type: 'invalid_request_error', code: 'model_not_active' },
  internal_error: { type: 'server_error', code: 'internal_error' },
  service_unavailable: { type: 'server_error', code: 'service_unavailable' },
};

/**
 * `{error: {message, type, code, param}}`, OpenAI's error body, for one of the API's errors; a
 * missing agent is OpenAI's missing model.
 */
export function openAiErrorBody(error: DomainError, route: 'matched' | 'unknown') {
  const issue = error.details[0];
  let type = 'invalid_request_error';
  let code: string = error.code;
  if (error.code === 'validation_error') {
    code = issue?.message.startsWith(UNSUPPORTED) ? 'unsupported_parameter' : 'invalid_value';
  } else if (error.code === 'not_found') {
    code = route === 'matched' ? 'model_not_found' : 'unknown_url';
  } else {
    ({ type, code } = OPENAI_ERRORS[error.code] ?? { type, code });
  }
  const param = issue ? issue.field.replace(/^body\.?/, '') || null : code === 'model_not_found' ? 'model' : null;
  const message = issue ? `${param ?? issue.field} ${issue.message}` : error.message;
  return { error: { message, type, code, param } };
}

/**
 * Every error under `/openai/v1` (and a path no route serves there) in OpenAI's shape, so OpenAI's
 * clients raise their own error classes; the body parser's refusals (bad JSON, too large) included.
 */
export const openAiErrorShape: ErrorShape = {
  prefix: `${OPENAI_PREFIX}/`,
  body: (error, unknownRoute) => openAiErrorBody(error, unknownRoute ? 'unknown' : 'matched'),
};
