const DEFAULT_PORTS: Record<string, string> = { 'http:': '80', 'https:': '443' };

/**
 * The destination a webhook URL sends to, as fair delivery counts it: host and port
 * (`hooks.example.com:443`), whatever the path. An unparsable URL is its own destination (its
 * attempts fail at once anyway).
 */
export function destinationOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname.toLowerCase()}:${parsed.port || DEFAULT_PORTS[parsed.protocol] || ''}`;
  } catch {
    return url;
  }
}
