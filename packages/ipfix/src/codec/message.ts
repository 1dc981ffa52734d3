import { IpfixError } from '../errors.js';
import { IANA_ENTERPRISE_ID, type InfoElement, infoElementById, VARIABLE_LENGTH } from '../registry.js';
import { encodedLength, type FieldValue, readField, writeField } from './field-value.js';

/** RFC 7011 section 3.1: version 10. */
export const IPFIX_VERSION = 10;
export const MESSAGE_HEADER_LENGTH = 16;
export const SET_HEADER_LENGTH = 4;
export const TEMPLATE_SET_ID = 2;
export const OPTIONS_TEMPLATE_SET_ID = 3;
/** Data sets use their template's id, which starts here. */
export const MIN_DATA_SET_ID = 256;

export interface MessageHeader {
  /** Seconds since the epoch when the message left the exporter. */
  readonly exportTime: number;
  /** Data records sent in this stream and domain before this message, modulo 2^32. */
  readonly sequence: number;
  readonly domainId: number;
}

export interface TemplateRecord {
  readonly templateId: number;
  readonly elements: readonly InfoElement[];
}

/** One set to encode: templates, or data records (values in template order). */
export type SetSpec =
  | { readonly templates: readonly TemplateRecord[] }
  | { readonly template: TemplateRecord; readonly records: readonly (readonly FieldValue[])[] };

const fieldSpecifierLength = (e: InfoElement): number => (e.enterprise === IANA_ENTERPRISE_ID ? 4 : 8);

export function templateRecordLength(t: TemplateRecord): number {
  let n = 4;
  for (const e of t.elements) n += fieldSpecifierLength(e);
  return n;
}

export function dataRecordLength(t: TemplateRecord, values: readonly FieldValue[]): number {
  let n = 0;
  for (let i = 0; i < t.elements.length; i++) n += encodedLength(t.elements[i]!, values[i]!);
  return n;
}

function setLength(s: SetSpec): number {
  let n = SET_HEADER_LENGTH;
  if ('templates' in s) for (const t of s.templates) n += templateRecordLength(t);
  else for (const r of s.records) n += dataRecordLength(s.template, r);
  return n;
}

function writeTemplate(buf: Buffer, at: number, t: TemplateRecord): number {
  buf.writeUInt16BE(t.templateId, at);
  buf.writeUInt16BE(t.elements.length, at + 2);
  at += 4;
  for (const e of t.elements) {
    // The enterprise bit (RFC 7011 section 3.2) is the top bit of the element id.
    const enterprise = e.enterprise !== IANA_ENTERPRISE_ID;
    buf.writeUInt16BE(enterprise ? e.id | 0x8000 : e.id, at);
    buf.writeUInt16BE(e.length, at + 2);
    at += 4;
    if (enterprise) {
      buf.writeUInt32BE(e.enterprise, at);
      at += 4;
    }
  }
  return at;
}

/** One IPFIX message: header, then the sets in order (no padding). */
export function encodeMessage(header: MessageHeader, sets: readonly SetSpec[]): Buffer {
  const lengths = sets.map(setLength);
  const total = lengths.reduce((a, b) => a + b, MESSAGE_HEADER_LENGTH);
  if (total > 0xffff) throw new IpfixError('IPFIX_ENCODE', `message of ${total} bytes exceeds 65535`);
  const buf = Buffer.allocUnsafe(total);
  buf.writeUInt16BE(IPFIX_VERSION, 0);
  buf.writeUInt16BE(total, 2);
  buf.writeUInt32BE(header.exportTime >>> 0, 4);
  buf.writeUInt32BE(header.sequence >>> 0, 8);
  buf.writeUInt32BE(header.domainId >>> 0, 12);
  let at = MESSAGE_HEADER_LENGTH;
  sets.forEach((s, i) => {
    const start = at;
    if ('templates' in s) {
      buf.writeUInt16BE(TEMPLATE_SET_ID, at);
      at += SET_HEADER_LENGTH;
      for (const t of s.templates) at = writeTemplate(buf, at, t);
    } else {
      if (s.template.templateId < MIN_DATA_SET_ID) {
        throw new IpfixError('IPFIX_ENCODE', `template id ${s.template.templateId} is below 256`);
      }
      buf.writeUInt16BE(s.template.templateId, at);
      at += SET_HEADER_LENGTH;
      for (const r of s.records) {
        if (r.length !== s.template.elements.length) {
          throw new IpfixError(
            'IPFIX_ENCODE',
            `record has ${r.length} values for ${s.template.elements.length} fields`,
          );
        }
        for (let k = 0; k < r.length; k++) at = writeField(buf, at, s.template.elements[k]!, r[k]!);
      }
    }
    buf.writeUInt16BE(lengths[i]!, start + 2);
  });
  return buf;
}

/** A field as a template announced it: the element (synthesized when unknown) and wire length. */
export interface WireField {
  readonly element: InfoElement;
  readonly length: number;
}

export interface DecodedTemplate {
  readonly templateId: number;
  readonly fields: readonly WireField[];
}

export interface DecodedDataRecord {
  readonly templateId: number;
  /** By element name; unknown elements appear as `<enterprise>:<id>` with raw bytes. */
  readonly values: Readonly<Record<string, FieldValue>>;
}

export interface DecodedMessage extends MessageHeader {
  readonly templates: readonly DecodedTemplate[];
  readonly records: readonly DecodedDataRecord[];
  /** Data sets skipped because their template was not known (yet). */
  readonly unknownSets: readonly number[];
}

/**
 * Templates a collecting process has learned, per observation domain (RFC 7011 section 8).
 * Pure state: the caller keeps one per transport session.
 */
export class TemplateCache {
  private readonly templates = new Map<string, DecodedTemplate>();
  get(domainId: number, templateId: number): DecodedTemplate | undefined {
    return this.templates.get(`${domainId}/${templateId}`);
  }
  set(domainId: number, t: DecodedTemplate): void {
    this.templates.set(`${domainId}/${t.templateId}`, t);
  }
  /** Template id 2 (the template set's id) withdraws all of the domain's templates (RFC 7011 section 8.1). */
  withdraw(domainId: number, templateId: number): void {
    if (templateId !== TEMPLATE_SET_ID) {
      this.templates.delete(`${domainId}/${templateId}`);
      return;
    }
    const prefix = `${domainId}/`;
    for (const key of this.templates.keys()) if (key.startsWith(prefix)) this.templates.delete(key);
  }
  get size(): number {
    return this.templates.size;
  }
}

function decodeError(message: string, at: number): IpfixError {
  return new IpfixError('IPFIX_DECODE', `${message} (at byte ${at})`);
}

const INTEGER_TYPES: ReadonlySet<string> = new Set([
  'unsigned8',
  'unsigned16',
  'unsigned32',
  'unsigned64',
  'signed32',
]);

/**
 * Whether a template may give `e` this wire length: its own, variable for strings and octet
 * arrays, or fewer bytes for integers (reduced-size encoding, RFC 7011 section 6.2).
 */
function lengthFits(e: InfoElement, length: number): boolean {
  if (e.type === 'string' || e.type === 'octetArray') return true;
  if (INTEGER_TYPES.has(e.type)) return length >= 1 && length <= e.length;
  return length === e.length;
}

function readTemplates(buf: Buffer, at: number, end: number): DecodedTemplate[] {
  const out: DecodedTemplate[] = [];
  // Anything shorter than a template record header is padding.
  while (end - at >= 4) {
    const templateId = buf.readUInt16BE(at);
    const count = buf.readUInt16BE(at + 2);
    at += 4;
    const fields: WireField[] = [];
    for (let i = 0; i < count; i++) {
      if (at + 4 > end) throw decodeError('truncated field specifier', at);
      const raw = buf.readUInt16BE(at);
      const length = buf.readUInt16BE(at + 2);
      at += 4;
      let enterprise = IANA_ENTERPRISE_ID;
      if (raw & 0x8000) {
        if (at + 4 > end) throw decodeError('truncated enterprise number', at);
        enterprise = buf.readUInt32BE(at);
        at += 4;
      }
      const id = raw & 0x7fff;
      const known = infoElementById(id, enterprise);
      if (known && !lengthFits(known, length))
        throw decodeError(`${known.name} (${known.type}) cannot be ${length} bytes long`, at - 4);
      const element: InfoElement = known ?? {
        name: `${enterprise}:${id}`,
        id,
        enterprise,
        type: 'octetArray',
        length,
      };
      fields.push({ element, length });
    }
    out.push({ templateId, fields });
  }
  return out;
}

function readRecords(buf: Buffer, at: number, end: number, t: DecodedTemplate): DecodedDataRecord[] {
  const out: DecodedDataRecord[] = [];
  const minLength = t.fields.reduce((n, f) => n + (f.length === VARIABLE_LENGTH ? 1 : f.length), 0);
  // Trailing bytes shorter than the smallest record are padding (RFC 7011 section 3.3.1).
  while (end - at >= Math.max(minLength, 1)) {
    const values: Record<string, FieldValue> = {};
    for (const f of t.fields) {
      let length = f.length;
      if (length === VARIABLE_LENGTH) {
        if (at + 1 > end) throw decodeError('truncated variable-length prefix', at);
        length = buf[at++]!;
        if (length === 255) {
          if (at + 2 > end) throw decodeError('truncated variable-length prefix', at);
          length = buf.readUInt16BE(at);
          at += 2;
        }
      }
      if (at + length > end) throw decodeError(`field ${f.element.name} runs past its set`, at);
      values[f.element.name] = readField(buf, at, f.element, length);
      at += length;
    }
    out.push({ templateId: t.templateId, values });
  }
  return out;
}

/** Decodes one whole message, learning its templates into `cache` before its data sets. */
export function decodeMessage(buf: Buffer, cache: TemplateCache): DecodedMessage {
  if (buf.length < MESSAGE_HEADER_LENGTH) throw decodeError('shorter than a message header', 0);
  const version = buf.readUInt16BE(0);
  if (version !== IPFIX_VERSION) throw decodeError(`version ${version}, not 10`, 0);
  const length = buf.readUInt16BE(2);
  if (length < MESSAGE_HEADER_LENGTH || length > buf.length)
    throw decodeError(`bad message length ${length}`, 2);
  const header = {
    exportTime: buf.readUInt32BE(4),
    sequence: buf.readUInt32BE(8),
    domainId: buf.readUInt32BE(12),
  };
  const templates: DecodedTemplate[] = [];
  const records: DecodedDataRecord[] = [];
  const unknownSets: number[] = [];
  let at = MESSAGE_HEADER_LENGTH;
  while (at < length) {
    if (at + SET_HEADER_LENGTH > length) throw decodeError('truncated set header', at);
    const setId = buf.readUInt16BE(at);
    const setLen = buf.readUInt16BE(at + 2);
    const end = at + setLen;
    if (setLen < SET_HEADER_LENGTH || end > length) throw decodeError(`bad set length ${setLen}`, at + 2);
    const body = at + SET_HEADER_LENGTH;
    if (setId === TEMPLATE_SET_ID) {
      for (const t of readTemplates(buf, body, end)) {
        if (t.fields.length === 0) cache.withdraw(header.domainId, t.templateId);
        else cache.set(header.domainId, t);
        templates.push(t);
      }
    } else if (setId >= MIN_DATA_SET_ID) {
      const t = cache.get(header.domainId, setId);
      if (t) records.push(...readRecords(buf, body, end, t));
      else unknownSets.push(setId);
    } else if (setId !== OPTIONS_TEMPLATE_SET_ID) {
      throw decodeError(`reserved set id ${setId}`, at);
    }
    at = end;
  }
  return { ...header, templates, records, unknownSets };
}
