/** One span as the services exported it (OTLP/HTTP), with the service that recorded it. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  /** OTLP span kind: 1 internal, 2 server, 3 client, 4 producer, 5 consumer. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
}

/**
 * A reader of the OTLP protobuf messages the services export (ExportTraceServiceRequest, from
 * opentelemetry/proto/collector/trace/v1/trace_service.proto), just enough for tests: the fields
 * of ReceivedSpan, every other field skipped by its wire type.
 */
type Fields = Map<number, Array<number | Buffer>>;

function readVarint(buf: Buffer, at: { pos: number }): number {
  let value = 0;
  let factor = 1;
  for (;;) {
    const byte = buf[at.pos++];
    if (byte === undefined) throw new Error('truncated protobuf message');
    value += (byte & 0x7f) * factor;
    if (byte < 0x80) return value;
    factor *= 128;
  }
}

/** The fields of one message: varints as numbers, fixed64 and length-delimited ones as bytes. */
function fieldsOf(buf: Buffer): Fields {
  const fields: Fields = new Map();
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const key = readVarint(buf, at);
    const field = Math.floor(key / 8);
    let value: number | Buffer;
    switch (key & 7) {
      case 0:
        value = readVarint(buf, at);
        break;
      case 1:
        value = buf.subarray(at.pos, (at.pos += 8));
        break;
      case 2: {
        const length = readVarint(buf, at);
        value = buf.subarray(at.pos, (at.pos += length));
        break;
      }
      case 5:
        value = buf.subarray(at.pos, (at.pos += 4));
        break;
      default:
        throw new Error(`unexpected protobuf wire type ${key & 7}`);
    }
    const list = fields.get(field) ?? [];
    list.push(value);
    fields.set(field, list);
  }
  return fields;
}

const messages = (fields: Fields, field: number): Buffer[] =>
  (fields.get(field) ?? []).filter((v): v is Buffer => Buffer.isBuffer(v));
const first = (fields: Fields, field: number) => fields.get(field)?.[0];
const text = (fields: Fields, field: number) => {
  const value = first(fields, field);
  return Buffer.isBuffer(value) ? value.toString('utf8') : undefined;
};

/** AnyValue: 1 string, 2 bool, 3 int64 (varint), 4 double (fixed64). */
function anyValue(buf: Buffer): string | number | boolean {
  const fields = fieldsOf(buf);
  if (fields.has(1)) return text(fields, 1) ?? '';
  if (fields.has(2)) return first(fields, 2) === 1;
  if (fields.has(3)) return Number(first(fields, 3));
  const double = first(fields, 4);
  return Buffer.isBuffer(double) ? double.readDoubleLE(0) : '';
}

/** Repeated KeyValue (1 key, 2 value). */
function attributes(list: Buffer[]): Record<string, string | number | boolean> {
  const result: Record<string, string | number | boolean> = {};
  for (const keyValue of list) {
    const fields = fieldsOf(keyValue);
    const value = messages(fields, 2)[0];
    result[text(fields, 1) ?? ''] = value ? anyValue(value) : '';
  }
  return result;
}

const hex = (value: number | Buffer | undefined) =>
  Buffer.isBuffer(value) && value.length > 0 ? value.toString('hex') : undefined;

/**
 * The spans of an ExportTraceServiceRequest: resource_spans (1) -> resource (1, attributes 1) and
 * scope_spans (2) -> spans (2). Span: 1 trace_id, 2 span_id, 4 parent_span_id, 5 name, 6 kind,
 * 9 attributes, 15 status (2 message, 3 code).
 */
export function spansOfProtobuf(body: Buffer): ReceivedSpan[] {
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of messages(fieldsOf(body), 1)) {
    const fields = fieldsOf(resourceSpans);
    const resource = messages(fields, 1)[0];
    const service = String(resource ? (attributes(messages(fieldsOf(resource), 1))['service.name'] ?? '') : '');
    for (const scopeSpans of messages(fields, 2)) {
      for (const spanBytes of messages(fieldsOf(scopeSpans), 2)) {
        const span = fieldsOf(spanBytes);
        const statusBytes = messages(span, 15)[0];
        const status = statusBytes ? fieldsOf(statusBytes) : undefined;
        spans.push({
          service,
          traceId: hex(first(span, 1)) ?? '',
          spanId: hex(first(span, 2)) ?? '',
          parentSpanId: hex(first(span, 4)),
          name: text(span, 5) ?? '',
          kind: Number(first(span, 6) ?? 0),
          attributes: attributes(messages(span, 9)),
          status: status
            ? { code: Number(first(status, 3) ?? 0), ...(status.has(2) ? { message: text(status, 2) } : {}) }
            : {},
        });
      }
    }
  }
  return spans;
}
