import { describe, expect, it } from 'vitest';
import { AgentError } from '../../errors.js';
import { addressesByName, DNS_TYPE, encodeDnsMessage, parseDnsMessage } from './dns-message.js';

const A = DNS_TYPE.A;
const CNAME = DNS_TYPE.CNAME;

function response(name: string, answers: { name: string; type: number; ttl: number; data: string }[]) {
  return encodeDnsMessage({ id: 7, response: true, rcode: 0, questions: [{ name, type: A }], answers });
}

describe('parseDnsMessage', () => {
  it('reads questions, A and CNAME answers, names lower-cased without the trailing dot', () => {
    const msg = parseDnsMessage(
      response('WWW.Test.Example.', [
        { name: 'www.test.example', type: CNAME, ttl: 300, data: 'Edge.CDN.example' },
        { name: 'edge.cdn.example', type: A, ttl: 20, data: '198.51.100.7' },
      ]),
    );
    expect(msg).toMatchObject({ id: 7, response: true, rcode: 0 });
    expect(msg.questions).toEqual([{ name: 'www.test.example', type: A }]);
    expect(msg.answers).toEqual([
      { name: 'www.test.example', type: CNAME, ttl: 300, data: 'edge.cdn.example' },
      { name: 'edge.cdn.example', type: A, ttl: 20, data: '198.51.100.7' },
    ]);
  });

  it('follows compression pointers (as real servers write names)', () => {
    // Header, question a.example (offset 12), answer whose name is a pointer to offset 12.
    const q = Buffer.from([1, 0x61, 7, ...Buffer.from('example'), 0, 0, 1, 0, 1]);
    const ans = Buffer.from([0xc0, 12, 0, 1, 0, 1, 0, 0, 0, 60, 0, 4, 10, 0, 0, 9]);
    const header = Buffer.from([0, 1, 0x81, 0x80, 0, 1, 0, 1, 0, 0, 0, 0]);
    const msg = parseDnsMessage(Buffer.concat([header, q, ans]));
    expect(msg.answers).toEqual([{ name: 'a.example', type: A, ttl: 60, data: '10.0.0.9' }]);
  });

  it('rejects malformed input with AGENT_DNS_MALFORMED and never throws anything else', () => {
    const good = response('a.example', [{ name: 'a.example', type: A, ttl: 5, data: '10.0.0.1' }]);
    const loop = Buffer.from([0, 1, 0x81, 0x80, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12, 0, 1, 0, 1]);
    const badA = Buffer.from(good);
    badA.writeUInt16BE(3, good.length - 6); // rdlength 3 for an A record
    const cases = [Buffer.alloc(0), Buffer.alloc(11), good.subarray(0, good.length - 1), loop, badA];
    for (const c of cases) {
      let err: unknown;
      try {
        parseDnsMessage(c);
      } catch (e) {
        err = e;
      }
      expect(AgentError.is(err) && err.code).toBe('AGENT_DNS_MALFORMED');
    }
  });

  it('survives random bytes and random corruptions of a valid response (fuzz)', () => {
    const good = response('x.test.example', [
      { name: 'x.test.example', type: CNAME, ttl: 5, data: 'y.test.example' },
      { name: 'y.test.example', type: A, ttl: 5, data: '10.0.0.1' },
    ]);
    let seed = 12345;
    const rnd = () => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    let parsed = 0;
    for (let i = 0; i < 5000; i++) {
      const buf =
        i % 2 === 0 ? Buffer.from(good) : Buffer.from(Array.from({ length: rnd() % 80 }, () => rnd() & 0xff));
      if (i % 2 === 0) for (let k = 0; k < 3; k++) buf[rnd() % buf.length] = rnd() & 0xff;
      try {
        const msg = parseDnsMessage(buf);
        addressesByName(msg);
        parsed++;
      } catch (e) {
        expect(AgentError.is(e)).toBe(true);
      }
    }
    expect(parsed).toBeGreaterThan(0);
  });
});

describe('addressesByName', () => {
  it('gives the question and every alias of a CNAME chain the final addresses with the A TTL', () => {
    const msg = parseDnsMessage(
      response('a.test.example', [
        { name: 'a.test.example', type: CNAME, ttl: 300, data: 'b.other.example' },
        { name: 'b.other.example', type: CNAME, ttl: 300, data: 'c.cdn.example' },
        { name: 'c.cdn.example', type: A, ttl: 7, data: '10.1.0.1' },
        { name: 'c.cdn.example', type: A, ttl: 9, data: '10.1.0.2' },
      ]),
    );
    const byName = addressesByName(msg);
    const want = [
      { ip: '10.1.0.1', ttl: 7 },
      { ip: '10.1.0.2', ttl: 9 },
    ];
    expect(byName.get('a.test.example')).toEqual(want);
    expect(byName.get('b.other.example')).toEqual(want);
    expect(byName.get('c.cdn.example')).toEqual(want);
  });

  it('ends a CNAME loop and leaves names without addresses out', () => {
    const msg = parseDnsMessage(
      response('l.example', [
        { name: 'l.example', type: CNAME, ttl: 1, data: 'm.example' },
        { name: 'm.example', type: CNAME, ttl: 1, data: 'l.example' },
      ]),
    );
    expect(addressesByName(msg).size).toBe(0);
  });
});
