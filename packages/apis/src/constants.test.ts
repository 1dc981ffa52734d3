import { CONTROLLER_API_PORT, CT_ZONE } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';

describe('constants', () => {
  it('keeps the numbers Antrea users know', () => {
    expect(CONTROLLER_API_PORT).toBe(10349);
    expect(CT_ZONE).toBe(65520);
  });
});
