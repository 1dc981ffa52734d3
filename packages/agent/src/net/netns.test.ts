import { describe, expect, it } from 'vitest';
import { ipInNetns } from './netns.js';

describe('ipInNetns', () => {
  it('runs ip -n for a named namespace and ip under nsenter for any other handle', () => {
    expect(ipInNetns('/var/run/netns/p1', ['-batch', '-'])).toEqual(['ip', '-n', 'p1', '-batch', '-']);
    expect(ipInNetns('/run/netns/p1', ['link'])).toEqual(['ip', '-n', 'p1', 'link']);
    expect(ipInNetns('/proc/42/ns/net', ['link'])).toEqual([
      'nsenter',
      '--net=/proc/42/ns/net',
      '--',
      'ip',
      'link',
    ]);
    expect(ipInNetns('/var/run/netns/a/b', ['link'])).toEqual([
      'nsenter',
      '--net=/var/run/netns/a/b',
      '--',
      'ip',
      'link',
    ]);
  });
});
