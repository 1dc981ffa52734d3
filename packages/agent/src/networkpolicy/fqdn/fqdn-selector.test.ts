import { describe, expect, it } from 'vitest';
import { fqdnSelector } from './fqdn-selector.js';

describe('fqdnSelector (Antrea matching)', () => {
  it('matches exact names case-insensitively, with or without the trailing dot', () => {
    const s = fqdnSelector('API.Example.com');
    expect(s.exactName).toBe('api.example.com');
    expect(s.matches('api.example.com')).toBe(true);
    expect(s.matches('Api.EXAMPLE.com.')).toBe(true);
    expect(s.matches('x.api.example.com')).toBe(false);
    expect(s.matches('apixexample.com')).toBe(false);
  });

  it('lets * stand for any characters, dots included, but not for the dot before the suffix', () => {
    const s = fqdnSelector('*.test.example');
    expect(s.exactName).toBeUndefined();
    expect(s.matches('a.test.example')).toBe(true);
    expect(s.matches('a.b.TEST.example')).toBe(true);
    expect(s.matches('test.example')).toBe(false);
    expect(s.matches('atest.example')).toBe(false);
    expect(s.matches('a.test.example.org')).toBe(false);
  });

  it('takes * inside a label and regex characters literally otherwise', () => {
    const s = fqdnSelector('svc-*.a+b.example');
    expect(s.matches('svc-1.a+b.example')).toBe(true);
    expect(s.matches('svc-.a+b.example')).toBe(true);
    expect(s.matches('svc-1.aab.example')).toBe(false);
  });
});
