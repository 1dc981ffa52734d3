import { describe, expect, it, vi } from 'vitest';
import { FlowType } from '../flow-record.js';
import { agentRecord } from '../testing-records.js';
import { fillPodMetadata, type PodInfo, type PodMetadata } from './pod-metadata.js';

const client: PodInfo = { name: 'client', namespace: 'ns', nodeName: 'node-1', labels: { app: 'client' } };
const server: PodInfo = {
  name: 'server',
  namespace: 'ns',
  nodeName: 'node-2',
  labels: { app: 'server', tier: 'web' },
};
const pods: PodMetadata = {
  byIp: (ip) => ({ '10.10.0.2': client, '10.10.1.3': server })[ip],
  get: (namespace, name) => [client, server].find((p) => p.namespace === namespace && p.name === name),
};
const tuple = { src: '10.10.0.2', dst: '10.10.1.3', sport: 1, dport: 2, start: 1, end: 2 };

describe('fillPodMetadata', () => {
  it('adds both Pods’ labels as JSON with podLabels', () => {
    const r = agentRecord({
      ...tuple,
      flowType: FlowType.IntraNode,
      srcPod: { ...client, node: 'node-1' },
      dstPod: { ...server, node: 'node-2' },
    });
    fillPodMetadata(r, pods, true);
    expect(r).toMatchObject({
      sourcePodLabels: '{"app":"client"}',
      destinationPodLabels: '{"app":"server","tier":"web"}',
    });
  });

  it('names the Pod of an end the record lacks, by its address', () => {
    const r = agentRecord({ ...tuple, flowType: FlowType.InterNode, srcPod: { ...client, node: 'node-1' } });
    const counted = { byIp: pods.byIp, get: vi.fn(pods.get) };
    fillPodMetadata(r, counted, false);
    // Without podLabels the named end needs no lookup.
    expect(counted.get).not.toHaveBeenCalled();
    expect(r).toMatchObject({
      destinationPodName: 'server',
      destinationPodNamespace: 'ns',
      destinationNodeName: 'node-2',
    });
    expect(r.sourcePodLabels).toBeUndefined();
  });

  it('leaves an end that is no Pod empty', () => {
    const r = agentRecord({
      ...tuple,
      dst: '8.8.8.8',
      flowType: FlowType.ToExternal,
      srcPod: { ...client, node: 'node-1' },
    });
    fillPodMetadata(r, pods, true);
    expect(r).toMatchObject({
      destinationPodName: '',
      destinationPodLabels: '',
      sourcePodLabels: '{"app":"client"}',
    });
  });
});
