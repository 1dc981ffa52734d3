import { describe, expect, it } from 'vitest';
import { percentile } from './bench-report-stats.js';

describe('percentile (nearest rank)', () => {
  const hundred = Array.from({ length: 100 }, (_, i) => 100 - i); // 100..1, unsorted on purpose

  it('picks the sample at rank ceil(p/100 * n)', () => {
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 90)).toBe(90);
    expect(percentile(hundred, 99)).toBe(99);
    expect(percentile(hundred, 100)).toBe(100);
    expect(percentile([3, 1, 2, 5, 4], 50)).toBe(3);
    expect(percentile([3, 1, 2, 5, 4], 99)).toBe(5);
  });

  it('takes the lower middle sample as the median of an even count', () => {
    expect(percentile([4, 1, 3, 2], 50)).toBe(2);
  });

  it('clamps p to the smallest and largest sample', () => {
    expect(percentile([7, 9], 0)).toBe(7);
    expect(percentile([7], 99)).toBe(7);
  });

  it('does not reorder the caller’s samples and is NaN without samples', () => {
    const xs = [2, 1];
    percentile(xs, 50);
    expect(xs).toEqual([2, 1]);
    expect(percentile([], 50)).toBeNaN();
  });
});
