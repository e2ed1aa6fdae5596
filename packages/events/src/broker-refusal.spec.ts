import {
  KafkaJSConnectionError,
  KafkaJSNonRetriableError,
  KafkaJSNumberOfRetriesExceeded,
  KafkaJSProtocolError,
  KafkaJSRequestTimeoutError,
} from 'kafkajs';
import { brokerRefusal } from './broker-refusal.js';

/** kafkajs' own description of an error code, as its produce response parser builds the error. */
function protocolError(type: string, code: number, retriable: boolean): KafkaJSProtocolError {
  return new KafkaJSProtocolError({ type, code, retriable, message: type } as unknown as Error);
}

describe('brokerRefusal', () => {
  it('takes a record refusal as final, however kafkajs wrapped it', () => {
    const tooLarge = protocolError('MESSAGE_TOO_LARGE', 10, false);
    expect(brokerRefusal(tooLarge)).toEqual({ type: 'MESSAGE_TOO_LARGE', permanent: true });
    // As kafkajs' retrier passes on a refusal it does not retry.
    const wrapped = Object.assign(new KafkaJSNonRetriableError(tooLarge), { cause: tooLarge });
    expect(brokerRefusal(wrapped)).toEqual({ type: 'MESSAGE_TOO_LARGE', permanent: true });
    expect(brokerRefusal(protocolError('INVALID_RECORD', 87, false))?.permanent).toBe(true);
  });

  it('retries a refusal that is not about the record itself', () => {
    const replicas = protocolError('NOT_ENOUGH_REPLICAS', 19, true);
    expect(brokerRefusal(new KafkaJSNumberOfRetriesExceeded(replicas, { retryCount: 5, retryTime: 100 }))).toEqual({
      type: 'NOT_ENOUGH_REPLICAS',
      permanent: false,
    });
    // Not retriable for kafkajs, but about the client's rights, not the record.
    expect(brokerRefusal(protocolError('TOPIC_AUTHORIZATION_FAILED', 29, false))?.permanent).toBe(false);
  });

  it('finds no refusal when the broker did not answer', () => {
    expect(brokerRefusal(new KafkaJSConnectionError('Connection error: connect ECONNREFUSED'))).toBeUndefined();
    const timeout = new KafkaJSRequestTimeoutError('Request Produce(key: 0, version: 7) timed out');
    expect(
      brokerRefusal(new KafkaJSNumberOfRetriesExceeded(timeout, { retryCount: 5, retryTime: 100 })),
    ).toBeUndefined();
    expect(brokerRefusal(new Error('The producer is disconnected'))).toBeUndefined();
  });
});
