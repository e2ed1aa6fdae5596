import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spansOfProtobuf, type ReceivedSpan } from './otlp-protobuf.js';
import { waitFor } from './wait.js';

export type { ReceivedSpan } from './otlp-protobuf.js';

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number };
type OtlpAttribute = { key: string; value: OtlpValue };

function valueOf(value: OtlpValue): string | number | boolean {
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  return value.boolValue ?? '';
}

function attributesOf(list: OtlpAttribute[] = []): Record<string, string | number | boolean> {
  return Object.fromEntries(list.map((a) => [a.key, valueOf(a.value)]));
}

/** The spans of an OTLP/HTTP JSON export. */
function spansOfJson(buf: Buffer): ReceivedSpan[] {
  const body = JSON.parse(buf.toString('utf8')) as {
    resourceSpans?: Array<{
      resource?: { attributes?: OtlpAttribute[] };
      scopeSpans?: Array<{ spans?: any[] }>;
    }>;
  };
  const spans: ReceivedSpan[] = [];
  for (const resourceSpans of body.resourceSpans ?? []) {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
    for (const scope of resourceSpans.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        spans.push({
          service,
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId || undefined,
          name: span.name,
          kind: span.kind,
          attributes: attributesOf(span.attributes),
          status: span.status ?? {},
        });
      }
    }
  }
  return spans;
}

/**
 * A real OTLP/HTTP trace receiver on a free port: the services' exporters post to
 * `<url>/v1/traces` (protobuf, as @opentelemetry/exporter-trace-otlp-proto sends it; JSON is read
 * too) and tests read the spans back. Point OTEL_EXPORTER_OTLP_ENDPOINT at `url`.
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<OtlpReceiver> {
    const server = createServer();
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', resolve);
    });
    const receiver = new OtlpReceiver(server, `http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => receiver.handle(req, res));
    return receiver;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const type = req.headers['content-type'] ?? '';
      if (req.method !== 'POST' || req.url !== '/v1/traces' || !/protobuf|json/.test(type)) {
        res.writeHead(415).end();
        return;
      }
      const body = Buffer.concat(chunks);
      if (type.includes('protobuf')) {
        this.spans.push(...spansOfProtobuf(body));
        // An empty ExportTraceServiceResponse: every span accepted.
        res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
      } else {
        this.spans.push(...spansOfJson(body));
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      }
    });
  }

  /** The spans of one trace received so far. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((s) => s.traceId === traceId);
  }

  /** Waits for a span matching `match` (exporters send in batches, every few seconds). */
  waitForSpan(match: (span: ReceivedSpan) => boolean, what = 'a span', timeoutMs = 30_000): Promise<ReceivedSpan> {
    return waitFor(() => this.spans.find(match), { timeoutMs, intervalMs: 200, what });
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
