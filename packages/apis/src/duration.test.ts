import { parseGoDuration } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';

describe('parseGoDuration', () => {
  it('sums the parts of a Go duration in ms', () => {
    expect(parseGoDuration('1h2m3s')).toBe(3_723_000);
    expect(parseGoDuration('1h1m1s1ms')).toBe(3_661_001);
    expect(parseGoDuration('250ms')).toBe(250);
    expect(parseGoDuration('1.5s')).toBe(1500);
    expect(parseGoDuration('1500us')).toBe(1.5);
    expect(parseGoDuration('2µs')).toBe(0.002);
    expect(parseGoDuration('3000000ns')).toBe(3);
  });
  it('is undefined for anything else', () => {
    for (const bad of ['', '5', 's', '5s3', '5 s', 'x5s', '5sx', '-5s', '5d', 'soon']) {
      expect(parseGoDuration(bad), bad).toBeUndefined();
    }
  });
});
