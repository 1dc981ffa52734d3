import { describe, expect, it } from 'vitest';
import { AntctlError } from './errors.js';
import { decideMode } from './mode.js';

describe('decideMode (Antrea in-Pod detection from POD_NAME)', () => {
  it('is controller mode outside any Pod', () => {
    expect(decideMode(undefined)).toEqual({ mode: 'controller', inPod: false });
    expect(decideMode('my-debug-pod')).toEqual({ mode: 'controller', inPod: false });
  });
  it('is agent mode in the antrea-agent Pod', () => {
    expect(decideMode('antrea-agent-x7k2p')).toEqual({ mode: 'agent', inPod: true });
  });
  it('is in-Pod controller mode in the antrea-controller Pod', () => {
    expect(decideMode('antrea-controller-5d9f-abcde')).toEqual({ mode: 'controller', inPod: true });
  });
  it('lets --mode override detection', () => {
    expect(decideMode(undefined, 'agent')).toEqual({ mode: 'agent', inPod: true });
    // From the agent Pod, controller mode goes through the Kubernetes API, not loopback.
    expect(decideMode('antrea-agent-x7k2p', 'controller')).toEqual({ mode: 'controller', inPod: false });
    expect(decideMode('antrea-controller-1', 'controller')).toEqual({ mode: 'controller', inPod: true });
  });
  it('rejects an unknown --mode with a usage error', () => {
    const err = (() => {
      try {
        decideMode(undefined, 'flowaggregator');
      } catch (e) {
        return e;
      }
    })();
    expect(AntctlError.is(err) && err.code).toBe('ANTCTL_USAGE');
  });
});
