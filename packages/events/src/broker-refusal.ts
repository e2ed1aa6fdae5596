/**
 * Kafka protocol errors that say a record itself is unacceptable (kafkajs marks them not
 * retriable): sending it again can only fail the same way. Other non-retriable protocol errors
 * (authorization, unsupported versions) are about the client or the cluster, not the record, so a
 * record meeting one is retried like any refusal rather than given up at once.
 */
const RECORD_REFUSALS = new Set(['MESSAGE_TOO_LARGE', 'RECORD_LIST_TOO_LARGE', 'INVALID_RECORD', 'INVALID_TIMESTAMP']);

/** What the broker answered to a send that failed, when it answered at all. */
export interface BrokerRefusal {
  /** The Kafka error type, e.g. MESSAGE_TOO_LARGE. */
  type: string;
  /** The record can never be accepted as it is. */
  permanent: boolean;
}

/**
 * The broker's refusal behind a failed send: a kafkajs protocol error (an error code in the
 * broker's answer), found through the causes kafkajs wraps it in (a refusal that outlasted the
 * client's own retries comes as KafkaJSNumberOfRetriesExceeded). Undefined when the broker never
 * answered (no connection, a timeout, no metadata): the records were not judged, the broker is
 * away.
 */
export function brokerRefusal(error: unknown): BrokerRefusal | undefined {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const { name, type } = current as Error & { type?: unknown };
    if (name === 'KafkaJSProtocolError' && typeof type === 'string') {
      return { type, permanent: RECORD_REFUSALS.has(type) };
    }
    current = current.cause;
  }
  return undefined;
}
