import { describe, expect, it } from 'vitest';
import { normalizedUID, uuidV5 } from './uuid.js';

describe('uuidV5', () => {
  it('matches RFC 4122 test vectors', () => {
    // Python: uuid.uuid5(uuid.NAMESPACE_DNS, 'python.org')
    expect(uuidV5('6ba7b810-9dad-11d1-80b4-00c04fd430c8', 'python.org')).toBe(
      '886313e1-3b8a-5372-9b90-0c9aee199e5d',
    );
  });
  it("derives group names from Antrea's namespace UUID", () => {
    // Python: uuid.uuid5(uuid.UUID('e4f24a48-ca1f-4d5b-819c-ea7632b22115'), ...)
    expect(normalizedUID('namespace=default And podSelector=app=web')).toBe(
      '0f4789f6-6f28-5440-8ad4-46d8ac276643',
    );
    expect(normalizedUID('namespaceSelector= And podSelector=')).toBe('3531148b-82bf-5ed7-96d1-2b55af7949de');
  });
  it('rejects a malformed namespace', () => {
    expect(() => uuidV5('not-a-uuid', 'x')).toThrow(TypeError);
  });
});
