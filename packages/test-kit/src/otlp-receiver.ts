import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

// An OTLP/HTTP trace receiver for tests: a plain Node server that accepts POST /v1/traces in
// either encoding (http/json, or http/protobuf decoded here from the wire format) and keeps every
// span, flattened, with the service name of the process that sent it.

export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  /** Its status code: 0 unset, 1 ok, 2 error. */
  status: number;
  /** How the span came: `application/json` or `application/x-protobuf`. */
  encoding: string;
}

export interface OtlpReceiver {
  /** The base URL to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  spans: ReceivedSpan[];
  close(): Promise<void>;
}

// --- protobuf wire format: just what ExportTraceServiceRequest needs -------------------------

type Field = { no: number; value: bigint | Buffer };

function* fields(buf: Buffer): Generator<Field> {
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buf[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buf.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) yield { no, value: varint() };
    else if (wire === 1) {
      yield { no, value: buf.readBigUInt64LE(at) };
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      yield { no, value: buf.subarray(at, at + length) };
      at += length;
    } else if (wire === 5) {
      yield { no, value: BigInt(buf.readUInt32LE(at)) };
      at += 4;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

const bytesOf = (f: Field) => f.value as Buffer;
const numberOf = (f: Field) => Number(f.value as bigint);

/** opentelemetry.proto.common.v1.AnyValue */
function anyValue(buf: Buffer): unknown {
  for (const f of fields(buf)) {
    if (f.no === 1) return bytesOf(f).toString('utf8');
    if (f.no === 2) return f.value === 1n;
    if (f.no === 3) return Number(BigInt.asIntN(64, f.value as bigint));
    if (f.no === 4) return Buffer.from(new BigUint64Array([f.value as bigint]).buffer).readDoubleLE(0);
    if (f.no === 5) return [...fields(bytesOf(f))].filter((v) => v.no === 1).map((v) => anyValue(bytesOf(v)));
    if (f.no === 6) return keyValues([...fields(bytesOf(f))].filter((v) => v.no === 1).map(bytesOf));
    if (f.no === 7) return bytesOf(f).toString('hex');
  }
  return undefined;
}

/** A list of opentelemetry.proto.common.v1.KeyValue */
function keyValues(list: Buffer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const kv of list) {
    let key = '';
    let value: unknown;
    for (const f of fields(kv)) {
      if (f.no === 1) key = bytesOf(f).toString('utf8');
      if (f.no === 2) value = anyValue(bytesOf(f));
    }
    out[key] = value;
  }
  return out;
}

export interface DecodedEvent {
  timeUnixNano: bigint;
  name: string;
  attributes: Record<string, unknown>;
  droppedAttributesCount: number;
}

export interface DecodedLink {
  traceId: string;
  spanId: string;
  traceState: string;
  attributes: Record<string, unknown>;
  droppedAttributesCount: number;
  flags: number;
}

/** Every field of an opentelemetry.proto.trace.v1.Span, absent ones at their proto3 defaults. */
export interface DecodedSpan {
  traceId: string;
  spanId: string;
  traceState: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: bigint;
  endTimeUnixNano: bigint;
  attributes: Record<string, unknown>;
  droppedAttributesCount: number;
  events: DecodedEvent[];
  droppedEventsCount: number;
  links: DecodedLink[];
  droppedLinksCount: number;
  status: { code: number; message: string };
  flags: number;
}

export interface DecodedRequest {
  resourceSpans: {
    resource: { attributes: Record<string, unknown> };
    scopeSpans: { scope: { name: string; version: string }; spans: DecodedSpan[]; schemaUrl: string }[];
    schemaUrl: string;
  }[];
}

/** The messages of `field` in `buf`. */
const messages = (buf: Buffer, field: number) => [...fields(buf)].filter((f) => f.no === field).map(bytesOf);

type Reader = (f: Field) => unknown;
const hex: Reader = (f) => bytesOf(f).toString('hex');
const utf8: Reader = (f) => bytesOf(f).toString('utf8');
const big: Reader = (f) => f.value as bigint;

/** Sets `target`'s scalar fields from `buf`: each field number's property and how it is read. */
function readInto<T extends object>(buf: Buffer, target: T, scalars: Record<number, [keyof T, Reader]>): T {
  for (const f of fields(buf)) {
    const scalar = scalars[f.no];
    if (scalar) (target as Record<keyof T, unknown>)[scalar[0]] = scalar[1](f);
  }
  return target;
}

const decodeEvent = (buf: Buffer): DecodedEvent =>
  readInto(
    buf,
    { timeUnixNano: 0n, name: '', attributes: keyValues(messages(buf, 3)), droppedAttributesCount: 0 },
    { 1: ['timeUnixNano', big], 2: ['name', utf8], 4: ['droppedAttributesCount', numberOf] },
  );

const decodeLink = (buf: Buffer): DecodedLink =>
  readInto(
    buf,
    {
      traceId: '',
      spanId: '',
      traceState: '',
      attributes: keyValues(messages(buf, 4)),
      droppedAttributesCount: 0,
      flags: 0,
    },
    {
      1: ['traceId', hex],
      2: ['spanId', hex],
      3: ['traceState', utf8],
      5: ['droppedAttributesCount', numberOf],
      6: ['flags', numberOf],
    },
  );

function decodeSpan(buf: Buffer): DecodedSpan {
  const status = { code: 0, message: '' };
  for (const st of messages(buf, 15)) readInto(st, status, { 2: ['message', utf8], 3: ['code', numberOf] });
  return readInto(
    buf,
    {
      traceId: '',
      spanId: '',
      traceState: '',
      parentSpanId: '',
      name: '',
      kind: 0,
      startTimeUnixNano: 0n,
      endTimeUnixNano: 0n,
      attributes: keyValues(messages(buf, 9)),
      droppedAttributesCount: 0,
      events: messages(buf, 11).map(decodeEvent),
      droppedEventsCount: 0,
      links: messages(buf, 13).map(decodeLink),
      droppedLinksCount: 0,
      status,
      flags: 0,
    },
    {
      1: ['traceId', hex],
      2: ['spanId', hex],
      3: ['traceState', utf8],
      4: ['parentSpanId', hex],
      5: ['name', utf8],
      6: ['kind', numberOf],
      7: ['startTimeUnixNano', big],
      8: ['endTimeUnixNano', big],
      10: ['droppedAttributesCount', numberOf],
      12: ['droppedEventsCount', numberOf],
      14: ['droppedLinksCount', numberOf],
      16: ['flags', numberOf],
    },
  );
}

/** An ExportTraceServiceRequest in the protobuf encoding, every field decoded. */
export function decodeExportRequest(body: Buffer): DecodedRequest {
  return {
    resourceSpans: messages(body, 1).map((rs) => ({
      resource: { attributes: keyValues(messages(messages(rs, 1)[0] ?? Buffer.alloc(0), 1)) },
      scopeSpans: messages(rs, 2).map((ss) => {
        const scope = { name: '', version: '' };
        for (const f of fields(messages(ss, 1)[0] ?? Buffer.alloc(0))) {
          if (f.no === 1) scope.name = bytesOf(f).toString('utf8');
          if (f.no === 2) scope.version = bytesOf(f).toString('utf8');
        }
        let schemaUrl = '';
        for (const f of fields(ss)) if (f.no === 3) schemaUrl = bytesOf(f).toString('utf8');
        return { scope, spans: messages(ss, 2).map(decodeSpan), schemaUrl };
      }),
      schemaUrl: [...fields(rs)].filter((f) => f.no === 3).map((f) => bytesOf(f).toString('utf8'))[0] ?? '',
    })),
  };
}

function decodeProtobuf(body: Buffer): ReceivedSpan[] {
  return decodeExportRequest(body).resourceSpans.flatMap((rs) => {
    const service = String(rs.resource.attributes['service.name'] ?? '');
    return rs.scopeSpans.flatMap((ss) =>
      ss.spans.map((s) => ({
        service,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId,
        name: s.name,
        attributes: s.attributes,
        status: s.status.code,
        encoding: 'application/x-protobuf',
      })),
    );
  });
}

// --- http/json --------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: Record<string, unknown>;
}

function jsonValue(value: Record<string, unknown> | undefined): unknown {
  if (!value) return undefined;
  if ('stringValue' in value) return value.stringValue;
  if ('boolValue' in value) return value.boolValue;
  if ('intValue' in value) return Number(value.intValue);
  if ('doubleValue' in value) return value.doubleValue;
  if ('arrayValue' in value)
    return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(jsonValue);
  if ('kvlistValue' in value)
    return jsonAttributes((value.kvlistValue as { values?: JsonKeyValue[] }).values);
  if ('bytesValue' in value) return value.bytesValue;
  return undefined;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map((kv) => [kv.key, jsonValue(kv.value)]));
}

interface JsonRequest {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        attributes?: JsonKeyValue[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}

function decodeJson(body: Buffer): ReceivedSpan[] {
  const request = JSON.parse(body.toString('utf8')) as JsonRequest;
  return (request.resourceSpans ?? []).flatMap((rs) => {
    const service = String(jsonAttributes(rs.resource?.attributes)['service.name'] ?? '');
    return (rs.scopeSpans ?? []).flatMap((ss) =>
      (ss.spans ?? []).map((s) => ({
        service,
        traceId: s.traceId,
        spanId: s.spanId,
        parentSpanId: s.parentSpanId ?? '',
        name: s.name,
        attributes: jsonAttributes(s.attributes),
        status: s.status?.code ?? 0,
        encoding: 'application/json',
      })),
    );
  });
}

/** Starts the receiver on a free loopback port. */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== '/v1/traces') {
        res.writeHead(404).end();
        return;
      }
      const body = Buffer.concat(chunks);
      const type = req.headers['content-type'] ?? '';
      try {
        spans.push(...(type.includes('json') ? decodeJson(body) : decodeProtobuf(body)));
      } catch {
        res.writeHead(400).end();
        return;
      }
      res.writeHead(200, { 'content-type': type.includes('json') ? 'application/json' : type });
      res.end(type.includes('json') ? '{}' : '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
