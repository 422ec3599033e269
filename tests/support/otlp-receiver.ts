import http from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** A span as a collector sees it: ids in hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes: Record<string, unknown>;
  /** The attributes of the resource that sent it (`service.name`, ...). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** What `OTEL_EXPORTER_OTLP_ENDPOINT` is set to: the exporter appends `/v1/traces`. */
  url: string;
  spans: ReceivedSpan[];
  /** The content types of the export requests, e.g. `application/x-protobuf`. */
  contentTypes: Set<string>;
  close(): Promise<void>;
}

/**
 * The part of OTLP's `trace.proto` a test reads, with the field numbers of opentelemetry-proto v1: enough to decode
 * an `ExportTraceServiceRequest` from a real exporter. Fields left out are skipped by the decoder.
 */
const TRACE_PROTO = `
syntax = "proto3";
package otlp;
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1;
  bytes span_id = 2;
  bytes parent_span_id = 4;
  string name = 5;
  repeated KeyValue attributes = 9;
}
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; }
}
message ArrayValue { repeated AnyValue values = 1; }
`;

const ExportRequest = protobuf.parse(TRACE_PROTO, { keepCase: false }).root.lookupType('otlp.ExportTraceServiceRequest');

/** A loopback OTLP/HTTP trace receiver (protobuf and JSON), standing in for an OpenTelemetry collector. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes = new Set<string>();
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const type = req.headers['content-type'] ?? '';
    contentTypes.add(type);
    if (req.method !== 'POST' || req.url !== '/v1/traces') {
      res.writeHead(404).end();
      return;
    }
    const request = type.includes('json')
      ? (JSON.parse(body.toString('utf8')) as ExportBody)
      : (ExportRequest.toObject(ExportRequest.decode(body), { longs: Number, bytes: String, defaults: false }) as ExportBody);
    spans.push(...readSpans(request, type.includes('json') ? 'hex' : 'base64'));
    res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : 'application/x-protobuf' });
    res.end(type.includes('json') ? '{}' : '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    contentTypes,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value?: AnyValue;
}
interface ExportBody {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: { spans?: { traceId: string; spanId: string; parentSpanId?: string; name: string; attributes?: KeyValue[] }[] }[];
  }[];
}

/** Span ids are bytes: base64 in decoded protobuf, hex already in OTLP/JSON. */
function readSpans(request: ExportBody, ids: 'hex' | 'base64'): ReceivedSpan[] {
  const hex = (id: string | undefined) => (id ? (ids === 'hex' ? id : Buffer.from(id, 'base64').toString('hex')) : undefined);
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const resource = attributesOf(resourceSpans.resource?.attributes);
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: hex(span.traceId)!,
        spanId: hex(span.spanId)!,
        parentSpanId: hex(span.parentSpanId) || undefined,
        name: span.name,
        attributes: attributesOf(span.attributes),
        resource,
      })),
    );
  });
}

function attributesOf(list: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, valueOf(value)]));
}

function valueOf(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}
