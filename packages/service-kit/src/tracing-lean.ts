import {
  ROOT_CONTEXT,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type AttributeValue,
  type Exception,
  type HrTime,
  type Link,
  type Span,
  type SpanContext,
  type SpanKind,
  type SpanStatus,
  type TimeInput,
} from '@opentelemetry/api';
import type { InstrumentationScope } from '@opentelemetry/core';
import type { Resource } from '@opentelemetry/resources';
import {
  SamplingDecision,
  type ReadableSpan,
  type Sampler,
  type SamplingResult,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace';
import { HTTP_REQUEST, setHttpRequestAttributes } from './tracing-http.js';

const NO_LINKS: Link[] = [];
const NO_PAIRS = Object.freeze([]) as unknown as Array<string | AttributeValue>;
const NO_EVENTS: TimedEvent[] = [];
const UNSET: SpanStatus = { code: SpanStatusCode.UNSET };
const NO_ATTRIBUTES: Attributes = Object.freeze({});
/** When the process started, in milliseconds since the epoch (fixed: read once). */
const TIME_ORIGIN = performance.timeOrigin;

/** Milliseconds since the epoch, to the microsecond (what the SDK's spans record). */
function nowMs(): number {
  return TIME_ORIGIN + performance.now();
}

function hrTime(ms: number): HrTime {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

function timeMs(time: TimeInput | undefined): number {
  if (time === undefined) return nowMs();
  if (typeof time === 'number') return time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1000 + time[1] / 1e6;
}

function isAttributeValue(value: unknown): value is AttributeValue {
  const type = typeof value;
  return type === 'string' || type === 'number' || type === 'boolean' || Array.isArray(value);
}

/**
 * The root span of a request, recorded with the least work the export needs: the gateway's server
 * span, one per request when every request is traced. The SDK's span (`Tracer.startSpan`) runs
 * the attribute checks and limits, span processors' `onStart`, a context lookup and several
 * objects per span; this one is one object that is both the API's `Span` (what the request's
 * middleware and its children see) and the SDK's `ReadableSpan` (what the span processor batches
 * and the OTLP exporter serializes), handed to the same processor at `end()`. It keeps the
 * platform's own rules: no stack traces in exception events, attributes of the API's types.
 * A root span only: the trace starts here (the gateway never continues a caller's trace).
 */
export class LeanSpan implements Span, ReadableSpan {
  readonly kind: SpanKind;
  /**
   * The attributes, key and value alternating, in the order first set: an object with keys added
   * one by one made every store a generic (megamorphic) one, and the writer walks this as it is.
   * Shared and empty until the first is set (a request's span usually has none before its end).
   */
  attributePairs: Array<string | AttributeValue> = NO_PAIRS;
  links: Link[] = NO_LINKS;
  events: TimedEvent[] = NO_EVENTS;
  status: SpanStatus = UNSET;
  ended = false;
  /** Start and end in milliseconds since the epoch (end 0 until ended): the HrTimes are read from them. */
  readonly startMs: number;
  endMs = 0;

  constructor(
    private readonly recorder: LeanRootSpans,
    private readonly context: SpanContext,
    /** The trace id's 16 bytes then the span id's 8, from `idsAt` (the id pool's, never overwritten). */
    readonly idBytes: Uint8Array,
    readonly idsAt: number,
    public name: string,
    kind: SpanKind,
    attributes: Attributes | undefined,
  ) {
    this.kind = kind;
    this.startMs = nowMs();
    if (attributes) this.setAttributes(attributes);
  }

  // What every lean span has alike, read from the recorder or fixed: no field of each span.
  get resource(): Resource {
    return this.recorder.resource;
  }

  get instrumentationScope(): InstrumentationScope {
    return this.recorder.scope;
  }

  get parentSpanContext(): undefined {
    return undefined;
  }

  get droppedAttributesCount(): number {
    return 0;
  }

  get droppedEventsCount(): number {
    return 0;
  }

  get droppedLinksCount(): number {
    return 0;
  }

  // The SDK's HrTimes, made only when read (the OTLP writer reads the milliseconds).
  get startTime(): HrTime {
    return hrTime(this.startMs);
  }

  get endTime(): HrTime {
    return this.ended ? hrTime(this.endMs) : [0, 0];
  }

  get duration(): HrTime {
    return this.ended ? hrTime(this.endMs - this.startMs) : [0, 0];
  }

  spanContext(): SpanContext {
    return this.context;
  }

  /** The SDK's view of the attributes (`ReadableSpan`), made when read. */
  get attributes(): Attributes {
    const attributes: Attributes = {};
    const pairs = this.attributePairs;
    for (let i = 0; i < pairs.length; i += 2) attributes[pairs[i] as string] = pairs[i + 1] as AttributeValue;
    return attributes;
  }

  setAttribute(key: string, value: AttributeValue): this {
    if (this.ended || !key || !isAttributeValue(value)) return this;
    const pairs = this.attributePairs;
    for (let i = 0; i < pairs.length; i += 2) {
      if (pairs[i] === key) {
        pairs[i + 1] = value;
        return this;
      }
    }
    if (pairs === NO_PAIRS) this.attributePairs = [key, value];
    else pairs.push(key, value);
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key of Object.keys(attributes)) {
      const value = attributes[key];
      if (value !== undefined) this.setAttribute(key, value);
    }
    return this;
  }

  addEvent(name: string, attributesOrTime?: Attributes | TimeInput, time?: TimeInput): this {
    if (this.ended) return this;
    const timeGiven = typeof attributesOrTime === 'number' || Array.isArray(attributesOrTime);
    const attributes = timeGiven || attributesOrTime instanceof Date ? undefined : (attributesOrTime as Attributes);
    const at = timeGiven || attributesOrTime instanceof Date ? (attributesOrTime as TimeInput) : time;
    if (this.events === NO_EVENTS) this.events = [];
    this.events.push({ name, time: hrTime(timeMs(at)), attributes, droppedAttributesCount: 0 });
    return this;
  }

  addLink(link: Link): this {
    if (this.ended) return this;
    if (this.links === NO_LINKS) this.links = [];
    this.links.push({ context: link.context, attributes: link.attributes ?? {}, droppedAttributesCount: 0 });
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.ended || this.status.code === SpanStatusCode.OK) return this;
    // As the SDK: a message only with an error, and OK is final.
    this.status = status.code === SpanStatusCode.ERROR ? { ...status } : { code: status.code };
    return this;
  }

  updateName(name: string): this {
    if (!this.ended) this.name = name;
    return this;
  }

  /** An `exception` event with the error's type and message, never its stack (it may quote inputs). */
  recordException(exception: Exception, time?: TimeInput): void {
    const error = typeof exception === 'string' ? { message: exception } : exception;
    const attributes: Attributes = {};
    if (error.name) attributes['exception.type'] = error.name;
    if (error.message) attributes['exception.message'] = error.message;
    this.addEvent('exception', attributes, time);
  }

  isRecording(): boolean {
    return !this.ended;
  }

  end(endTime?: TimeInput): void {
    if (this.ended) return;
    this.ended = true;
    this.endMs = Math.max(timeMs(endTime), this.startMs);
    this.recorder.sink.record(this);
  }

  /**
   * Ends an HTTP server request's span with what the gateway records of every request
   * (`setHttpRequestAttributes`). When nothing else was set on the span and its sink writes
   * records (production), the record is written from the arguments at once, the same bytes as
   * after those calls and `end()` (unit test): no attribute list, no name string, and the keys'
   * bytes written once for all spans.
   */
  endHttpRequest(method: string, path: string, requestId: string, status: number, route: string | undefined): void {
    if (this.ended) return;
    const sink = this.recorder.sink;
    if (
      sink.recordHttpRequest &&
      status < 500 &&
      this.attributePairs === NO_PAIRS &&
      this.events === NO_EVENTS &&
      this.links === NO_LINKS &&
      this.status === UNSET
    ) {
      this.ended = true;
      this.endMs = Math.max(nowMs(), this.startMs);
      sink.recordHttpRequest(this, method, path, requestId, status, route);
      return;
    }
    setHttpRequestAttributes(this, method, path, requestId, status, route);
    this.end();
  }
}

/**
 * Where lean root spans take their ids: a trace id and a span id at once, as hex (the span's
 * context: children, `traceparent`, log lines) and as bytes (its record), so the record copies
 * them instead of decoding the hex. After `takeRootIds`, `traceId` and `spanId` are the ids and
 * their 24 bytes (trace id first) are `bytes` from `bytesAt`, left unchanged by later calls.
 */
export interface RootIdPool {
  takeRootIds(): void;
  readonly traceId: string;
  readonly spanId: string;
  readonly bytes: Uint8Array;
  readonly bytesAt: number;
}

/** Where an ended lean span goes: its protobuf record (production) or a span processor (tests). */
export interface LeanSpanSink {
  record(span: LeanSpan): void;
  /** An HTTP request's span ended by `LeanSpan.endHttpRequest` with nothing else set, written from its arguments. */
  recordHttpRequest?(
    span: LeanSpan,
    method: string,
    path: string,
    requestId: string,
    status: number,
    route: string | undefined,
  ): void;
}

/** Hands ended lean spans to an SDK span processor, as the SDK's own spans are. */
export function processorSink(processor: SpanProcessor): LeanSpanSink {
  return { record: (span) => processor.onEnd(span) };
}

/**
 * Starts lean root spans (above) under the provider's sampler, ids and resource, ended into
 * `sink`: sampled and exported as the SDK's own spans.
 */
export class LeanRootSpans {
  constructor(
    readonly sink: LeanSpanSink,
    readonly resource: Resource,
    readonly scope: InstrumentationScope,
    private readonly sampler: Sampler,
    private readonly ids: RootIdPool,
    /**
     * Whether `sampler` records and samples every root span, whatever its id and name
     * (`always_on`, `parentbased_always_on`: the default): its decision is then not asked for
     * each span.
     */
    private readonly samplesEveryRoot = false,
  ) {}

  start(name: string, kind: SpanKind, attributes?: Attributes): Span {
    const ids = this.ids;
    ids.takeRootIds();
    const traceId = ids.traceId;
    const spanId = ids.spanId;
    const sampling = this.samplesEveryRoot
      ? SAMPLED
      : this.sampler.shouldSample(ROOT_CONTEXT, traceId, name, kind, attributes ?? NO_ATTRIBUTES, NO_LINKS);
    const traceFlags = sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE;
    const context: SpanContext = { traceId, spanId, traceFlags, traceState: sampling.traceState };
    // Not recorded: a span that only carries its context (children and `traceparent` say "not sampled").
    if (sampling.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(context);
    const span = new LeanSpan(this, context, ids.bytes, ids.bytesAt, name, kind, attributes);
    if (sampling.attributes) span.setAttributes(sampling.attributes);
    return span;
  }
}

/** What an always-on sampler decides for every span (`LeanRootSpans.samplesEveryRoot`). */
const SAMPLED: SamplingResult = Object.freeze({ decision: SamplingDecision.RECORD_AND_SAMPLED });

/** The value of each hex digit by its character code (ids are lowercase hex; others read as 0). */
const HEX = new Uint8Array(128);
for (let i = 0; i < 16; i++) {
  HEX['0123456789abcdef'.charCodeAt(i)] = i;
  HEX['0123456789ABCDEF'.charCodeAt(i)] = i;
}

/** The OTLP span flags: the trace flags, and "whether the parent is remote" is known (a root: no). */
const SPAN_FLAGS_HAS_IS_REMOTE = 0x100;

/** Each request attribute's key as a KeyValue's field 1 (tag, length, characters): the same for every span. */
const HTTP_KEYS = {
  method: encodedKey(HTTP_REQUEST.method),
  path: encodedKey(HTTP_REQUEST.path),
  requestId: encodedKey(HTTP_REQUEST.requestId),
  status: encodedKey(HTTP_REQUEST.status),
  route: encodedKey(HTTP_REQUEST.route),
};

function encodedKey(key: string): Uint8Array {
  return Uint8Array.from([1 * 8 + 2, key.length, ...Buffer.from(key, 'ascii')]);
}

/**
 * A protobuf writer for OTLP span records in one growable buffer. Strings are written by the
 * runtime's UTF-8 encoder and ids from their hex straight into the buffer; a length-delimited
 * field reserves one byte for its length and moves its body when it needs more (as the SDK's
 * writer does), so the bytes are the SDK serializer's for the same span.
 */
export class SpanWriter {
  buf = Buffer.allocUnsafe(64 * 1024);
  pos = 0;

  private ensure(bytes: number): void {
    if (this.pos + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }

  /** A varint of any integer in int64's range (negative ones in ten bytes, two's complement). */
  varint(value: number): void {
    this.ensure(10);
    const buf = this.buf;
    if (value >= 0 && value <= 0xffffffff) {
      let v = value >>> 0;
      while (v > 0x7f) {
        buf[this.pos++] = (v & 0x7f) | 0x80;
        v >>>= 7;
      }
      buf[this.pos++] = v;
      return;
    }
    const high = Math.floor(value / 0x100000000);
    let lo = (value - high * 0x100000000) >>> 0;
    let hi = high >>> 0;
    while (hi > 0 || lo > 0x7f) {
      buf[this.pos++] = (lo & 0x7f) | 0x80;
      lo = ((lo >>> 7) | (hi << 25)) >>> 0;
      hi >>>= 7;
    }
    buf[this.pos++] = lo;
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  string(field: number, value: string): void {
    this.tag(field, 2);
    const n = value.length;
    // ASCII (names, routes, ids: nearly every string here) byte by byte: for strings this short
    // that is cheaper than the runtime's encoder, which is a native call for its length and
    // another for its bytes.
    if (n < 128) {
      this.ensure(n + 1);
      const buf = this.buf;
      let at = this.pos + 1;
      let i = 0;
      for (; i < n; i++) {
        const code = value.charCodeAt(i);
        if (code > 0x7f) break;
        buf[at++] = code;
      }
      if (i === n) {
        buf[this.pos] = n;
        this.pos = at;
        return;
      }
    }
    const length = Buffer.byteLength(value);
    this.varint(length);
    this.ensure(length);
    this.pos += this.buf.write(value, this.pos, length, 'utf8');
  }

  /** `length` bytes of `source` from `at` (ids already in bytes). */
  bytes(field: number, source: Uint8Array, at: number, length: number): void {
    this.tag(field, 2);
    this.varint(length);
    this.ensure(length);
    const buf = this.buf;
    let pos = this.pos;
    for (let i = at; i < at + length; i++) buf[pos++] = source[i]!;
    this.pos = pos;
  }

  /** An id given in hex (trace and span ids) as its bytes. */
  hex(field: number, value: string): void {
    const length = value.length >>> 1;
    this.tag(field, 2);
    this.varint(length);
    this.ensure(length);
    const buf = this.buf;
    let at = this.pos;
    for (let i = 0; i < value.length; i += 2)
      buf[at++] = (HEX[value.charCodeAt(i)]! << 4) | HEX[value.charCodeAt(i + 1)]!;
    this.pos = at;
  }

  /** Nanoseconds since the epoch of milliseconds since the epoch, rounded as `hrTime` rounds them. */
  timeMs(field: number, ms: number): void {
    const seconds = Math.floor(ms / 1000);
    this.nanoseconds(field, seconds, Math.round((ms - seconds * 1000) * 1e6));
  }

  /** Nanoseconds since the epoch of an HrTime, as a fixed64. */
  time(field: number, [seconds, nanos]: HrTime): void {
    this.nanoseconds(field, seconds, nanos);
  }

  /** Seconds and nanoseconds as a fixed64 of nanoseconds (split as the SDK splits it). */
  private nanoseconds(field: number, seconds: number, nanos: number): void {
    this.tag(field, 1);
    this.ensure(8);
    const lower = (seconds & 0xffff) * 1e9;
    const upper = ((seconds / 0x10000) >>> 0) * 1e9;
    const low = (lower >>> 0) + (((upper & 0xffff) * 0x10000) >>> 0) + nanos;
    const high = Math.floor(lower / 0x100000000) + ((upper / 0x10000) >>> 0) + Math.floor(low / 0x100000000);
    this.uint32(low >>> 0);
    this.uint32(high >>> 0);
  }

  fixed32(field: number, value: number): void {
    this.tag(field, 5);
    this.ensure(4);
    this.uint32(value >>> 0);
  }

  private uint32(value: number): void {
    const buf = this.buf;
    buf[this.pos++] = value & 0xff;
    buf[this.pos++] = (value >>> 8) & 0xff;
    buf[this.pos++] = (value >>> 16) & 0xff;
    buf[this.pos++] = value >>> 24;
  }

  /** Starts a length-delimited field; `end` with what this returns closes it. */
  begin(field: number): number {
    this.tag(field, 2);
    this.ensure(1);
    return this.pos++;
  }

  end(start: number): void {
    const length = this.pos - start - 1;
    let size = 1;
    for (let v = length >>> 7; v > 0; v >>>= 7) size++;
    if (size > 1) {
      this.ensure(size - 1);
      this.buf.copyWithin(start + size, start + 1, this.pos);
      this.pos += size - 1;
    }
    let v = length;
    let at = start;
    while (v > 0x7f) {
      this.buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[at] = v;
  }

  attributes(field: number, attributes: Attributes): void {
    for (const key in attributes) {
      if (!Object.prototype.hasOwnProperty.call(attributes, key)) continue;
      this.keyValue(field, key, attributes[key]);
    }
  }

  /** Attributes given as key and value alternating (a lean span's). */
  attributePairs(field: number, pairs: ReadonlyArray<string | AttributeValue>): void {
    for (let i = 0; i < pairs.length; i += 2) this.keyValue(field, pairs[i] as string, pairs[i + 1]);
  }

  private keyValue(field: number, key: string, value: unknown): void {
    const pair = this.begin(field);
    this.string(1, key);
    const any = this.begin(2);
    this.anyValue(value);
    this.end(any);
    this.end(pair);
  }

  private anyValue(value: unknown): void {
    if (typeof value === 'string') this.string(1, value);
    else if (typeof value === 'boolean') {
      this.tag(2, 0);
      this.varint(value ? 1 : 0);
    } else if (typeof value === 'number') {
      if (Number.isInteger(value) && value >= -(2 ** 63) && value < 2 ** 63) {
        this.tag(3, 0);
        this.varint(value);
      } else {
        this.tag(4, 1);
        this.ensure(8);
        this.pos = this.buf.writeDoubleLE(value, this.pos);
      }
    } else if (Array.isArray(value)) {
      const array = this.begin(5);
      for (const item of value) {
        const one = this.begin(1);
        this.anyValue(item);
        this.end(one);
      }
      this.end(array);
    }
  }

  /**
   * `value` as the bytes of field `field` (tag, length, characters) when it is ASCII and shorter
   * than 128 characters, the length one byte; false, and nothing written, otherwise.
   */
  private shortAscii(field: number, value: string): boolean {
    const n = value.length;
    if (n > 127) return false;
    this.ensure(n + 2);
    const buf = this.buf;
    let at = this.pos;
    buf[at++] = field * 8 + 2;
    buf[at++] = n;
    for (let i = 0; i < n; i++) {
      const code = value.charCodeAt(i);
      if (code > 0x7f) return false;
      buf[at++] = code;
    }
    this.pos = at;
    return true;
  }

  /** The name `<method> <route>` (field 5) without making its string, when both are short ASCII. */
  private requestName(method: string, route: string | undefined): void {
    if (route === undefined) return this.string(5, method);
    const n = method.length + 1 + route.length;
    const start = this.pos;
    if (n < 128 && this.shortAscii(5, method)) {
      this.ensure(route.length + 1);
      const buf = this.buf;
      let at = this.pos;
      buf[at++] = 0x20;
      let i = 0;
      for (; i < route.length; i++) {
        const code = route.charCodeAt(i);
        if (code > 0x7f) break;
        buf[at++] = code;
      }
      if (i === route.length) {
        buf[start + 1] = n;
        this.pos = at;
        return;
      }
    }
    this.pos = start;
    this.string(5, `${method} ${route}`);
  }

  /**
   * An attribute (a KeyValue of field 9) whose key is written already (`key`: tag, length and
   * characters) and whose value is a string: lengths of one byte when they fit, else as `keyValue`.
   */
  private stringAttribute(key: Uint8Array, name: string, value: string): void {
    const start = this.pos;
    // KeyValue tag and length, the key, AnyValue (field 2) tag and length, then the string value.
    const anyLength = value.length + 2;
    if (key.length + anyLength + 2 < 128) {
      this.attributeHead(key, anyLength);
      if (this.shortAscii(1, value)) return;
    }
    this.pos = start;
    this.keyValue(9, name, value);
  }

  /**
   * The record `span()` writes for a span ended by `LeanSpan.endHttpRequest` with nothing else
   * set (no events, links or status message), written from the request's values.
   */
  httpRequestSpan(
    field: number,
    span: LeanSpan,
    method: string,
    path: string,
    requestId: string,
    status: number,
    route: string | undefined,
  ): void {
    // The record is 128 bytes or more (ids, keys and times alone): its length takes two bytes.
    const start = this.beginWide(field);
    const context = span.spanContext();
    this.bytes(1, span.idBytes, span.idsAt, 16);
    this.bytes(2, span.idBytes, span.idsAt + 16, 8);
    const traceState = context.traceState?.serialize();
    if (traceState) this.string(3, traceState);
    this.requestName(method, route);
    this.tag(6, 0);
    this.varint(span.kind + 1);
    this.timeMs(7, span.startMs);
    this.timeMs(8, span.endMs);
    this.stringAttribute(HTTP_KEYS.method, HTTP_REQUEST.method, method);
    this.stringAttribute(HTTP_KEYS.path, HTTP_REQUEST.path, path);
    this.stringAttribute(HTTP_KEYS.requestId, HTTP_REQUEST.requestId, requestId);
    this.intAttribute(HTTP_KEYS.status, HTTP_REQUEST.status, status);
    if (route !== undefined) this.stringAttribute(HTTP_KEYS.route, HTTP_REQUEST.route, route);
    // Dropped attributes, dropped events, dropped links (none), then the status: UNSET, no message.
    this.ensure(10);
    const buf = this.buf;
    buf[this.pos++] = 10 * 8;
    buf[this.pos++] = 0;
    buf[this.pos++] = 12 * 8;
    buf[this.pos++] = 0;
    buf[this.pos++] = 14 * 8;
    buf[this.pos++] = 0;
    buf[this.pos++] = 15 * 8 + 2;
    buf[this.pos++] = 2;
    buf[this.pos++] = 3 * 8;
    buf[this.pos++] = SpanStatusCode.UNSET;
    this.fixed32(16, (context.traceFlags & 0xff) | SPAN_FLAGS_HAS_IS_REMOTE);
    this.endWide(start);
  }

  /**
   * An attribute (a KeyValue of field 9) whose key is written already and whose value is an
   * integer from 0 to 16,383 (an HTTP status), as `keyValue` writes it; any other as `keyValue`.
   */
  private intAttribute(key: Uint8Array, name: string, value: number): void {
    if (!Number.isInteger(value) || value < 0 || value >= 1 << 14) return this.keyValue(9, name, value);
    const size = value < 128 ? 1 : 2;
    this.attributeHead(key, 1 + size);
    this.tag(3, 0);
    this.varint(value);
  }

  /**
   * The head of an attribute (a KeyValue of field 9) whose key is written already and whose
   * AnyValue (field 2) is `anyLength` bytes: tags and one-byte lengths, the key, up to the value.
   * The caller has checked that the KeyValue's length fits one byte.
   */
  private attributeHead(key: Uint8Array, anyLength: number): void {
    this.ensure(key.length + 4);
    const buf = this.buf;
    buf[this.pos++] = 9 * 8 + 2;
    buf[this.pos++] = key.length + 2 + anyLength;
    buf.set(key, this.pos);
    this.pos += key.length;
    buf[this.pos++] = 2 * 8 + 2;
    buf[this.pos++] = anyLength;
  }

  /** Starts a length-delimited field whose length is expected to take two bytes; `endWide` closes it. */
  private beginWide(field: number): number {
    this.tag(field, 2);
    this.ensure(2);
    const start = this.pos;
    this.pos += 2;
    return start;
  }

  /** Closes a `beginWide` field: its length as a minimal varint, the body moved when it is not two bytes. */
  private endWide(start: number): void {
    const length = this.pos - start - 2;
    const size = varintSize(length);
    if (size !== 2) {
      this.ensure(1);
      this.buf.copyWithin(start + size, start + 2, this.pos);
      this.pos += size - 2;
    }
    const buf = this.buf;
    let v = length;
    let at = start;
    while (v > 0x7f) {
      buf[at++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    buf[at] = v;
  }

  /** One `Span` message (as field `field` of its ScopeSpans), its fields in the SDK's order. */
  span(field: number, span: LeanSpan): void {
    const start = this.begin(field);
    const context = span.spanContext();
    this.bytes(1, span.idBytes, span.idsAt, 16);
    this.bytes(2, span.idBytes, span.idsAt + 16, 8);
    const traceState = context.traceState?.serialize();
    if (traceState) this.string(3, traceState);
    this.string(5, span.name);
    this.tag(6, 0);
    this.varint(span.kind + 1);
    this.timeMs(7, span.startMs);
    this.timeMs(8, span.endMs);
    this.attributePairs(9, span.attributePairs);
    this.tag(10, 0);
    this.varint(0);
    for (const event of span.events) {
      const one = this.begin(11);
      this.time(1, event.time);
      this.string(2, event.name);
      if (event.attributes) this.attributes(3, event.attributes);
      this.tag(4, 0);
      this.varint(0);
      this.end(one);
    }
    this.tag(12, 0);
    this.varint(0);
    for (const link of span.links) {
      const one = this.begin(13);
      this.hex(1, link.context.traceId);
      this.hex(2, link.context.spanId);
      const linkState = link.context.traceState?.serialize();
      if (linkState) this.string(3, linkState);
      if (link.attributes) this.attributes(4, link.attributes);
      this.tag(5, 0);
      this.varint(0);
      this.fixed32(
        6,
        (link.context.traceFlags & 0xff) | SPAN_FLAGS_HAS_IS_REMOTE | (link.context.isRemote ? 0x200 : 0),
      );
      this.end(one);
    }
    this.tag(14, 0);
    this.varint(0);
    const status = this.begin(15);
    if (span.status.message) this.string(2, span.status.message);
    this.tag(3, 0);
    this.varint(span.status.code);
    this.end(status);
    this.fixed32(16, (context.traceFlags & 0xff) | SPAN_FLAGS_HAS_IS_REMOTE);
    this.end(start);
  }
}

/** What the OTLP exporter sends for one batch of encoded spans. */
export interface EncodedBatch {
  body: Uint8Array;
  count: number;
}

/**
 * Writes each sampled lean span's protobuf record when it ends, into one buffer for the batch,
 * and leaves the span to be collected at once (the SDK keeps its spans as objects until their
 * batch is serialized, up to seconds later). The batch is sent on a timer or, once it holds
 * `batchBytes`, on the next turn of the event loop: never inside the `end()` of a request.
 * Sent through `send` (the SDK's OTLP/HTTP export, with its headers, retries and limits).
 * A batch the exporter refuses is lost, as the SDK's batch processor loses one; spans ended
 * while `maxBytes` are waiting are dropped and counted.
 */
export class EncodedSpans implements LeanSpanSink {
  private writer = new SpanWriter();
  private count = 0;
  private dropped = 0;
  private scheduled = false;
  private readonly timer: NodeJS.Timeout;
  /** ResourceSpans.resource and ScopeSpans.scope (each field 1, tag included), written once. */
  private readonly resource: Buffer;
  private readonly scope: Buffer;

  constructor(
    resource: Resource,
    scope: InstrumentationScope,
    private readonly send: (batch: EncodedBatch, done: (error?: Error) => void) => void,
    private readonly options: { delayMillis: number; batchBytes: number; maxBytes: number },
    private readonly onError: (error: Error, lost: number) => void,
  ) {
    const head = new SpanWriter();
    const res = head.begin(1);
    head.attributes(1, resource.attributes);
    head.tag(2, 0);
    head.varint(0);
    head.end(res);
    this.resource = Buffer.from(head.buf.subarray(0, head.pos));
    head.pos = 0;
    const sc = head.begin(1);
    head.string(1, scope.name);
    if (scope.version) head.string(2, scope.version);
    head.end(sc);
    this.scope = Buffer.from(head.buf.subarray(0, head.pos));
    this.timer = setInterval(() => void this.flush(), options.delayMillis);
    this.timer.unref();
  }

  record(span: LeanSpan): void {
    if (!this.admit(span)) return;
    this.writer.span(2, span);
    this.written();
  }

  recordHttpRequest(
    span: LeanSpan,
    method: string,
    path: string,
    requestId: string,
    status: number,
    route: string | undefined,
  ): void {
    if (!this.admit(span)) return;
    this.writer.httpRequestSpan(2, span, method, path, requestId, status, route);
    this.written();
  }

  /** Whether a span's record is to be written: sampled, and the bound not reached (else counted dropped). */
  private admit(span: LeanSpan): boolean {
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return false;
    if (this.writer.pos < this.options.maxBytes) return true;
    this.dropped++;
    return false;
  }

  private written(): void {
    this.count++;
    if (this.writer.pos >= this.options.batchBytes && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => void this.flush());
    }
  }

  /**
   * The ExportTraceServiceRequest of the spans written so far (undefined when there are none):
   * resource_spans (1) > { resource (1), scope_spans (2) > { scope (1), spans (2)... } }.
   */
  take(): EncodedBatch | undefined {
    if (this.count === 0) return undefined;
    const spans = this.writer.buf.subarray(0, this.writer.pos);
    const scopeSpans = this.scope.length + spans.length;
    const head = new SpanWriter();
    head.tag(1, 2);
    head.varint(this.resource.length + 1 + varintSize(scopeSpans) + scopeSpans);
    const resourceSpansHead = Buffer.from(head.buf.subarray(0, head.pos));
    head.pos = 0;
    head.tag(2, 2);
    head.varint(scopeSpans);
    const body = Buffer.concat([resourceSpansHead, this.resource, head.buf.subarray(0, head.pos), this.scope, spans]);
    const batch = { body, count: this.count };
    this.count = 0;
    this.writer.pos = 0;
    return batch;
  }

  /** Sends what is waiting; resolves when the collector has answered (or the export failed). */
  flush(): Promise<void> {
    this.scheduled = false;
    if (this.dropped > 0) {
      this.onError(
        new Error(`dropped ${this.dropped} spans: ${this.options.maxBytes} bytes already waiting`),
        this.dropped,
      );
      this.dropped = 0;
    }
    const batch = this.take();
    if (!batch) return Promise.resolve();
    return new Promise((resolve) =>
      this.send(batch, (error) => {
        if (error) this.onError(error, batch.count);
        resolve();
      }),
    );
  }

  async shutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

function varintSize(value: number): number {
  let size = 1;
  for (let v = value >>> 7; v > 0; v >>>= 7) size++;
  return size;
}
