import { describe, expect, it } from 'vitest';
import { parseFieldSelector, parseLabelSelector } from './selectors.js';

describe('label selectors', () => {
  it('parses every operator and matches like Kubernetes', () => {
    const s = parseLabelSelector('app=web,tier!=db,env in (prod, staging),team notin (x),has-it,!gone,n>3');
    expect(s.requirements.map((r) => r.operator)).toEqual([
      '=',
      '!=',
      'in',
      'notin',
      'exists',
      '!exists',
      'gt',
    ]);
    const labels = { app: 'web', env: 'prod', 'has-it': '', n: '4' };
    expect(s.matches(labels)).toBe(true);
    expect(s.matches({ ...labels, gone: 'x' })).toBe(false);
    expect(s.matches({ ...labels, env: 'dev' })).toBe(false);
    expect(s.matches({ ...labels, n: '3' })).toBe(false);
    expect(s.matches({ ...labels, tier: 'db' })).toBe(false);
    expect(parseLabelSelector('app==web').matches({ app: 'web' })).toBe(true);
    expect(parseLabelSelector('example.com/role=a').matches({ 'example.com/role': 'a' })).toBe(true);
    expect(parseLabelSelector('').empty).toBe(true);
  });

  it('rejects malformed selectors with a coded error', () => {
    // An empty value is valid in Kubernetes (the label is present with value "").
    expect(parseLabelSelector('app=').matches({ app: '' })).toBe(true);
    for (const bad of ['a in ()', 'bad key=1', 'a=b,,c', 'n>x', 'a=in valid']) {
      expect(() => parseLabelSelector(bad), bad).toThrow(
        expect.objectContaining({ code: 'APISERVER_SELECTOR_INVALID' }),
      );
    }
  });
});

describe('field selectors', () => {
  it('parses equality, inequality and escapes', () => {
    const s = parseFieldSelector('nodeName=node-1,metadata.name!=x\\,y');
    expect(s.equality('nodeName')).toBe('node-1');
    expect(s.requirements[1]).toEqual({ field: 'metadata.name', operator: '!=', value: 'x,y' });
    expect(s.matches((f) => ({ nodeName: 'node-1', 'metadata.name': 'z' })[f])).toBe(true);
    expect(s.matches((f) => ({ nodeName: 'node-1', 'metadata.name': 'x,y' })[f])).toBe(false);
    expect(parseFieldSelector('a==b').equality('a')).toBe('b');
  });

  it('rejects a requirement without operator', () => {
    expect(() => parseFieldSelector('nodeName')).toThrow(
      expect.objectContaining({ code: 'APISERVER_SELECTOR_INVALID' }),
    );
  });
});
