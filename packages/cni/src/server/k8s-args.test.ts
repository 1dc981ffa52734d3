import { describe, expect, it } from 'vitest';
import { parseK8sCniArgs } from './k8s-args.js';

describe('parseK8sCniArgs', () => {
  it("reads what containerd's CRI plugin passes", () => {
    expect(
      parseK8sCniArgs(
        'K8S_POD_INFRA_CONTAINER_ID=abc;K8S_POD_UID=u-1;IgnoreUnknown=1;K8S_POD_NAMESPACE=default;K8S_POD_NAME=web-0',
      ),
    ).toEqual({ podName: 'web-0', podNamespace: 'default', podInfraContainerId: 'abc', podUid: 'u-1' });
  });

  it('accepts empty args and values containing "="', () => {
    expect(parseK8sCniArgs('').podName).toBe('');
    expect(parseK8sCniArgs('K8S_POD_NAME=a=b').podName).toBe('a=b');
  });

  it('rejects malformed pairs, and unknown keys unless IgnoreUnknown is set', () => {
    expect(() => parseK8sCniArgs('K8S_POD_NAME')).toThrow('invalid pair');
    expect(() => parseK8sCniArgs('=x')).toThrow('invalid pair');
    expect(() => parseK8sCniArgs('FOO=1')).toThrow('unknown args');
    expect(parseK8sCniArgs('FOO=1;IgnoreUnknown=true').podName).toBe('');
  });
});
