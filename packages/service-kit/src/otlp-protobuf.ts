// The OTLP/HTTP protobuf encoding of spans (opentelemetry/proto, trace/v1 and collector/trace/v1),
// written as each span ends, so that a process keeps the bytes of its finished spans rather than
// the span objects until the next export (span-export.ts). Only what ExportTraceServiceRequest needs
// for one resource: resource spans, scope spans, spans with their attributes, events, links and
// status. Attribute values pass through the exported-value rule of redaction.ts on the way in.
import type { Attributes, AttributeValue, HrTime, Link, SpanContext } from '@opentelemetry/api';
import type { ReadableSpan, TimedEvent } from '@opentelemetry/sdk-trace-base';
import { exportedValue } from './redaction.ts';

const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;
const FIXED32 = 5;
const TWO_32 = 0x1_0000_0000;
/** Strings up to this length are written byte by byte when ASCII (a call into Buffer costs more). */
const SHORT_STRING = 64;

/** The span flags' bits beside the W3C trace flags: the parent's remoteness is known, and it is remote. */
const HAS_IS_REMOTE = 0x100;
const IS_REMOTE = 0x200;

/** A hexadecimal digit's value (`0`–`9`, `a`–`f`, `A`–`F`). */
const hexDigit = (code: number) => (code <= 0x39 ? code - 0x30 : (code | 0x20) - 0x57);

/** A growable buffer of protobuf fields. */
export class ProtoWriter {
  private buf: Buffer;
  length = 0;

  constructor(initialBytes = 4096) {
    this.buf = Buffer.allocUnsafe(initialBytes);
  }

  private room(bytes: number): void {
    if (this.length + bytes <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + bytes));
    this.buf.copy(next, 0, 0, this.length);
    this.buf = next;
  }

  /** An unsigned integer below 2^53 as a varint. */
  varint(value: number): void {
    this.room(10);
    let v = value;
    while (v >= 0x80) {
      this.buf[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.length++] = v;
  }

  private bigVarint(value: bigint): void {
    this.room(10);
    let v = value;
    while (v >= 0x80n) {
      this.buf[this.length++] = Number(v & 0x7fn) | 0x80;
      v >>= 7n;
    }
    this.buf[this.length++] = Number(v);
  }

  tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  uint(field: number, value: number): void {
    if (value === 0) return;
    this.tag(field, VARINT);
    this.varint(value);
  }

  /** An int64 field (a negative one as its 64-bit two's complement, ten bytes). */
  int64(field: number, value: number): void {
    this.tag(field, VARINT);
    if (value >= 0 && value <= Number.MAX_SAFE_INTEGER) this.varint(value);
    else this.bigVarint(BigInt.asUintN(64, BigInt(value)));
  }

  bool(field: number, value: boolean): void {
    this.tag(field, VARINT);
    this.varint(value ? 1 : 0);
  }

  double(field: number, value: number): void {
    this.tag(field, FIXED64);
    this.room(8);
    this.length = this.buf.writeDoubleLE(value, this.length);
  }

  fixed32(field: number, value: number): void {
    this.tag(field, FIXED32);
    this.room(4);
    this.uint32(value >>> 0);
  }

  /**
   * An unsigned 32-bit value's four bytes, little-endian, stored one by one: Buffer's writeUInt32LE
   * checks its arguments in a call that boxed each value above 2^31 (a heap profile's allocations).
   */
  private uint32(value: number): void {
    const buf = this.buf;
    const at = this.length;
    buf[at] = value & 0xff;
    buf[at + 1] = (value >>> 8) & 0xff;
    buf[at + 2] = (value >>> 16) & 0xff;
    buf[at + 3] = (value >>> 24) & 0xff;
    this.length = at + 4;
  }

  /** A fixed64 of nanoseconds since the epoch, given as seconds and nanoseconds (an HrTime). */
  nanos(field: number, seconds: number, nanos: number): void {
    // seconds × 10^9 + nanos passes 2^53: computed exactly in 32-bit words, seconds split in two
    // 16-bit halves (each product with 10^9 stays below 2^46).
    const high = Math.floor(seconds / 0x1_0000) * 1e9;
    const low = (seconds % 0x1_0000) * 1e9 + nanos + (high % 0x1_0000) * 0x1_0000;
    this.tag(field, FIXED64);
    this.room(8);
    this.uint32(low % TWO_32);
    this.uint32(Math.floor(high / 0x1_0000) + Math.floor(low / TWO_32));
  }

  /** A string field, left out when empty (proto3's default). */
  string(field: number, value: string | undefined): void {
    if (value) this.stringAlways(field, value);
  }

  /** A string field even when empty (a oneof member, whose presence counts). */
  stringAlways(field: number, value: string): void {
    this.tag(field, LEN);
    if (value.length <= SHORT_STRING && this.ascii(value)) return;
    const bytes = Buffer.byteLength(value);
    this.varint(bytes);
    this.room(bytes);
    this.length += this.buf.write(value, this.length, 'utf8');
  }

  /** Writes a short string's length and bytes when it is all ASCII; answers false (nothing written) otherwise. */
  private ascii(value: string): boolean {
    const n = value.length;
    this.room(n + 1);
    const buf = this.buf;
    const at = this.length + 1;
    for (let i = 0; i < n; i++) {
      const c = value.charCodeAt(i);
      if (c >= 0x80) return false;
      buf[at + i] = c;
    }
    buf[this.length] = n;
    this.length = at + n;
    return true;
  }

  /**
   * A hexadecimal id (trace or span, as the API and the W3C header give them: validated, lower or
   * upper case) as its bytes, decoded digit by digit rather than through a call into Buffer.
   */
  hexBytes(field: number, hex: string | undefined): void {
    if (!hex) return;
    const bytes = hex.length >> 1;
    this.tag(field, LEN);
    this.varint(bytes);
    this.room(bytes);
    const buf = this.buf;
    const at = this.length;
    for (let i = 0; i < bytes; i++)
      buf[at + i] = (hexDigit(hex.charCodeAt(2 * i)) << 4) | hexDigit(hex.charCodeAt(2 * i + 1));
    this.length = at + bytes;
  }

  bytes(field: number, value: Uint8Array): void {
    this.tag(field, LEN);
    this.varint(value.length);
    this.raw(value);
  }

  raw(value: Uint8Array): void {
    this.room(value.length);
    this.buf.set(value, this.length);
    this.length += value.length;
  }

  /** Starts an embedded message of `field`; `end` with what this answers writes its length. */
  begin(field: number): number {
    this.tag(field, LEN);
    this.room(1);
    return this.length++;
  }

  /** Ends the embedded message begun at `at`: its length goes before it (moved along if longer than a byte). */
  end(at: number): void {
    const size = this.length - at - 1;
    let lengthBytes = 1;
    for (let v = size; v >= 0x80; v = Math.floor(v / 0x80)) lengthBytes++;
    if (lengthBytes > 1) {
      this.room(lengthBytes - 1);
      this.buf.copyWithin(at + lengthBytes, at + 1, this.length);
      this.length += lengthBytes - 1;
    }
    let v = size;
    let i = at;
    while (v >= 0x80) {
      this.buf[i++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[i] = v;
  }

  /** The bytes written so far (a view: valid until the next write). */
  view(): Buffer {
    return this.buf.subarray(0, this.length);
  }

  reset(): void {
    this.length = 0;
  }
}

/** An AnyValue's fields (string 1, bool 2, int 3, double 4, array 5). */
function anyValue(w: ProtoWriter, field: number, value: AttributeValue): void {
  const at = w.begin(field);
  if (typeof value === 'string') w.stringAlways(1, value);
  else if (typeof value === 'boolean') w.bool(2, value);
  else if (typeof value === 'number') {
    if (Number.isInteger(value)) w.int64(3, value);
    else w.double(4, value);
  } else if (Array.isArray(value)) {
    const array = w.begin(5);
    for (const item of value as unknown[]) {
      if (item === null || item === undefined) w.end(w.begin(1));
      else anyValue(w, 1, item as AttributeValue);
    }
    w.end(array);
  }
  w.end(at);
}

/** Each attribute that may leave the process (redaction.ts), as a KeyValue of `field`. */
function attributes(w: ProtoWriter, field: number, attrs: Attributes | undefined): void {
  if (!attrs) return;
  for (const key in attrs) {
    const value = exportedValue(key, attrs[key]);
    if (value === undefined) continue;
    const at = w.begin(field);
    w.string(1, key);
    anyValue(w, 2, value);
    w.end(at);
  }
}

function time(w: ProtoWriter, field: number, t: HrTime): void {
  w.nanos(field, t[0], t[1]);
}

const flagsOf = (traceFlags: number, remote: boolean | undefined) =>
  (traceFlags & 0xff) | HAS_IS_REMOTE | (remote ? IS_REMOTE : 0);

function event(w: ProtoWriter, e: TimedEvent): void {
  const at = w.begin(11);
  time(w, 1, e.time);
  w.string(2, e.name);
  attributes(w, 3, e.attributes);
  w.uint(4, e.droppedAttributesCount ?? 0);
  w.end(at);
}

function link(w: ProtoWriter, l: Link): void {
  const at = w.begin(13);
  w.hexBytes(1, l.context.traceId);
  w.hexBytes(2, l.context.spanId);
  w.string(3, l.context.traceState?.serialize());
  attributes(w, 4, l.attributes);
  w.uint(5, l.droppedAttributesCount ?? 0);
  w.fixed32(6, flagsOf(l.context.traceFlags, l.context.isRemote));
  w.end(at);
}

/** A finished SDK span as a `spans` entry (field 2) of its scope's ScopeSpans. */
export function writeSpan(w: ProtoWriter, span: ReadableSpan): void {
  const at = w.begin(2);
  const context = span.spanContext();
  w.hexBytes(1, context.traceId);
  w.hexBytes(2, context.spanId);
  w.string(3, context.traceState?.serialize());
  w.hexBytes(4, span.parentSpanContext?.spanId);
  w.string(5, span.name);
  w.uint(6, span.kind + 1);
  time(w, 7, span.startTime);
  time(w, 8, span.endTime);
  attributes(w, 9, span.attributes);
  w.uint(10, span.droppedAttributesCount);
  for (const e of span.events) event(w, e);
  w.uint(12, span.droppedEventsCount);
  for (const l of span.links) link(w, l);
  w.uint(14, span.droppedLinksCount);
  const status = w.begin(15);
  w.string(2, span.status.message);
  w.uint(3, span.status.code);
  w.end(status);
  w.fixed32(16, flagsOf(context.traceFlags, span.parentSpanContext?.isRemote));
  w.end(at);
}

/** An event of a span written without an SDK span object. */
export interface DirectEvent {
  name: string;
  /** Milliseconds since the epoch. */
  timeMs: number;
  attributes?: Attributes;
}

/**
 * A span written without an SDK span object: a statement's (tracing.ts) or an HTTP request's or
 * call's (recorded-span.ts).
 */
export interface DirectSpan {
  /** Hexadecimal, as the API gives ids. */
  traceId: string;
  /** Hexadecimal, or its 8 bytes. */
  spanId: string | Uint8Array;
  traceState?: SpanContext['traceState'];
  traceFlags: number;
  parentSpanId?: string;
  /** Whether the parent came from another process (its traceparent). */
  parentRemote: boolean;
  name: string;
  /** SpanKind of the API (0 internal, 1 server, 2 client, …). */
  kind: number;
  /** Milliseconds since the epoch (fractions kept to the microsecond). */
  startMs: number;
  endMs: number;
  attributes: Attributes;
  droppedAttributesCount?: number;
  events?: readonly DirectEvent[];
  links?: readonly Link[];
  /** SpanStatusCode of the API (0 unset, 1 OK, 2 error), and an error's message. */
  statusCode: number;
  statusMessage?: string;
}

/** Epoch milliseconds (with a fraction) as nanoseconds, to the microsecond. */
function writeEpochMs(w: ProtoWriter, field: number, ms: number): void {
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1_000_000);
  w.nanos(field, seconds, (micros - seconds * 1_000_000) * 1000);
}

/** A span written without an SDK span object as a `spans` entry (field 2) of its scope's ScopeSpans. */
export function writeDirectSpan(w: ProtoWriter, span: DirectSpan): void {
  const at = w.begin(2);
  w.hexBytes(1, span.traceId);
  if (typeof span.spanId === 'string') w.hexBytes(2, span.spanId);
  else w.bytes(2, span.spanId);
  w.string(3, span.traceState?.serialize());
  w.hexBytes(4, span.parentSpanId);
  w.string(5, span.name);
  w.uint(6, span.kind + 1);
  writeEpochMs(w, 7, span.startMs);
  writeEpochMs(w, 8, span.endMs);
  attributes(w, 9, span.attributes);
  w.uint(10, span.droppedAttributesCount ?? 0);
  for (const e of span.events ?? []) {
    const event = w.begin(11);
    writeEpochMs(w, 1, e.timeMs);
    w.string(2, e.name);
    attributes(w, 3, e.attributes);
    w.end(event);
  }
  for (const l of span.links ?? []) link(w, l);
  const status = w.begin(15);
  w.string(2, span.statusMessage);
  w.uint(3, span.statusCode);
  w.end(status);
  w.fixed32(16, flagsOf(span.traceFlags, span.parentRemote));
  w.end(at);
}

/** A statement span's parent: the request's span, whose trace it joins. */
interface StatementParent {
  traceId: string;
  spanId: string;
  traceFlags: number;
  traceState?: SpanContext['traceState'];
}

/** Writes a statement's span: a client span, child of a span of this process. */
export type StatementSpanWriter = (
  w: ProtoWriter,
  parent: StatementParent,
  spanId: Uint8Array,
  command: string,
  sql: string,
  startMs: number,
  endMs: number,
  failed: boolean,
) => void;

/** SpanKind.CLIENT of the API, plus one (OTLP's numbering); SpanStatusCode.ERROR. */
const CLIENT_KIND = 3;
const STATUS_ERROR = 2;

/** A KeyValue's key (field 1), encoded once: the key's tag, length and bytes. */
function keyBytes(key: string): Buffer {
  const w = new ProtoWriter(key.length + 8);
  w.stringAlways(1, key);
  return Buffer.from(w.view());
}

/**
 * The writer of statement spans, each with three attributes: `systemKey` (always `system`),
 * `operationKey` (the command) and `textKey` (the statement). It writes what `writeDirectSpan` writes
 * for the same span, with no span or attribute object per statement and each key encoded once
 * (otlp-protobuf.test.ts compares the two). The keys pass the exported-value rule here, once: a key
 * the rule would drop or rewrite leaves the fast way, and each statement goes through
 * `writeDirectSpan`, which applies the rule to every attribute.
 */
export function statementSpanWriter(
  systemKey: string,
  system: string,
  operationKey: string,
  textKey: string,
): StatementSpanWriter {
  // A value every rewrite of the rule changes (query string, credentials, a credential segment): a
  // key keeps it whole only when the rule keeps that key's values as they are.
  const probe = 'https://user:secret@host/oauth2/auth/uid?code=1#state';
  const plain = [systemKey, operationKey, textKey].every((key) => exportedValue(key, probe) === probe);
  if (!plain)
    return (w, parent, spanId, command, sql, startMs, endMs, failed) =>
      writeDirectSpan(w, {
        traceId: parent.traceId,
        spanId,
        traceState: parent.traceState,
        traceFlags: parent.traceFlags,
        parentSpanId: parent.spanId,
        parentRemote: false,
        name: command,
        kind: CLIENT_KIND - 1,
        startMs,
        endMs,
        attributes: { [systemKey]: system, [operationKey]: command, [textKey]: sql },
        statusCode: failed ? STATUS_ERROR : 0,
      });
  const systemAttribute = new ProtoWriter(64);
  attributes(systemAttribute, 9, { [systemKey]: system });
  const systemBytes = Buffer.from(systemAttribute.view());
  const operationKeyBytes = keyBytes(operationKey);
  const textKeyBytes = keyBytes(textKey);
  const stringAttribute = (w: ProtoWriter, key: Buffer, value: string) => {
    const at = w.begin(9);
    w.raw(key);
    const any = w.begin(2);
    w.stringAlways(1, value);
    w.end(any);
    w.end(at);
  };
  return (w, parent, spanId, command, sql, startMs, endMs, failed) => {
    const at = w.begin(2);
    w.hexBytes(1, parent.traceId);
    w.bytes(2, spanId);
    w.string(3, parent.traceState?.serialize());
    w.hexBytes(4, parent.spanId);
    w.string(5, command);
    w.uint(6, CLIENT_KIND);
    writeEpochMs(w, 7, startMs);
    writeEpochMs(w, 8, endMs);
    w.raw(systemBytes);
    stringAttribute(w, operationKeyBytes, command);
    stringAttribute(w, textKeyBytes, sql);
    const status = w.begin(15);
    if (failed) w.uint(3, STATUS_ERROR);
    w.end(status);
    w.fixed32(16, flagsOf(parent.traceFlags, false));
    w.end(at);
  };
}

/** An instrumentation scope and the encoded spans it holds (each a field 2 of ScopeSpans). */
export interface ScopeBytes {
  name: string;
  version?: string;
  schemaUrl?: string;
  spans: Uint8Array;
}

/** ExportTraceServiceRequest of one resource (its attributes) and its scopes' spans. */
export function exportRequest(resource: Attributes, scopes: ScopeBytes[]): Buffer {
  const w = new ProtoWriter(64 + scopes.reduce((n, s) => n + s.spans.length + 64, 0));
  const resourceSpans = w.begin(1);
  const res = w.begin(1);
  attributes(w, 1, resource);
  w.end(res);
  for (const scope of scopes) {
    const scopeSpans = w.begin(2);
    const scopeAt = w.begin(1);
    w.string(1, scope.name);
    w.string(2, scope.version);
    w.end(scopeAt);
    w.raw(scope.spans);
    w.string(3, scope.schemaUrl);
    w.end(scopeSpans);
  }
  w.end(resourceSpans);
  // The writer was made for this request alone: its bytes need no copy.
  return w.view();
}
