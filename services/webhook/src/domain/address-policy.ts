import { isBlockedAddress, isBlockedName } from '@agentplatform/service-kit';

/** Why a webhook URL is unacceptable, or undefined. Names are checked again, resolved, at connect time. */
export function urlProblem(raw: string, allowPrivate: boolean): string | undefined {
  if (raw.length > 2048) return 'must be at most 2048 characters';
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return 'must be an absolute http(s) URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must use http or https';
  if (url.username || url.password) return 'must not contain credentials';
  if (!url.hostname) return 'must have a host';
  if (!allowPrivate && (isBlockedAddress(url.hostname) || isBlockedName(url.hostname))) {
    return 'must not point to a private, loopback, link-local or metadata address';
  }
  return undefined;
}
