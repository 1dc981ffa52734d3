import type { AntreaAgentInfo, AntreaControllerInfo } from '@antrea-ts/apis';
import { describe, expect, it } from 'vitest';
import { summarizeAgent, summarizeController } from './health.js';

const NOW = Date.parse('2026-11-21T12:00:00Z');

function agent(beat: string | undefined, extra: Partial<AntreaAgentInfo> = {}): AntreaAgentInfo {
  return {
    apiVersion: 'crd.antrea.io/v1beta1',
    kind: 'AntreaAgentInfo',
    metadata: { name: 'node-a' },
    version: 'v2',
    localPodNum: 3,
    ovsInfo: { flowTable: { Classifier: 4, Output: 2 } },
    agentConditions: beat
      ? [
          { type: 'AgentHealthy', status: 'True', lastHeartbeatTime: beat },
          { type: 'ControllerConnectionUp', status: 'True', lastHeartbeatTime: beat },
        ]
      : [],
    ...extra,
  };
}

const opts = { nowMs: NOW, staleAfterMs: 180_000, connectedNodes: new Set(['node-a']) };

describe('summarizeAgent', () => {
  it('is Healthy with a fresh heartbeat and every condition True, with flows summed over tables', () => {
    expect(summarizeAgent(agent('2026-11-21T11:59:18Z'), opts)).toEqual({
      node: 'node-a',
      state: 'Healthy',
      heartbeatAgeSeconds: 42,
      failing: [],
      version: 'v2',
      localPods: 3,
      flows: 6,
      nodeSubnets: [],
      connected: true,
    });
  });

  it('is Degraded when a connection condition is not True, and lists it', () => {
    const a = agent('2026-11-21T11:59:00Z');
    a.agentConditions![1]!.status = 'False';
    const s = summarizeAgent(a, { ...opts, connectedNodes: new Set() });
    expect([s.state, s.failing, s.connected]).toEqual(['Degraded', ['ControllerConnectionUp'], false]);
  });

  it('is Stale past staleAfterMs however healthy it claims to be, Unknown without a heartbeat', () => {
    expect(summarizeAgent(agent('2026-11-21T11:56:59Z'), opts).state).toBe('Stale');
    expect(summarizeAgent(agent('2026-11-21T11:57:00Z'), opts).state).toBe('Healthy');
    expect(summarizeAgent(agent(undefined), opts)).toMatchObject({
      state: 'Unknown',
      heartbeatAgeSeconds: undefined,
    });
  });

  it('shows age 0, not a negative age, for a heartbeat from a clock ahead of ours', () => {
    expect(summarizeAgent(agent('2026-11-21T12:00:05Z'), opts).heartbeatAgeSeconds).toBe(0);
  });

  it('names the agent after its nodeRef when there is one', () => {
    expect(summarizeAgent(agent(undefined, { nodeRef: { kind: 'Node', name: 'n7' } }), opts).node).toBe('n7');
  });
});

describe('summarizeController', () => {
  it('reads the ControllerHealthy heartbeat and the object counts', () => {
    const info: AntreaControllerInfo = {
      apiVersion: 'crd.antrea.io/v1beta1',
      kind: 'AntreaControllerInfo',
      metadata: { name: 'antrea-controller' },
      version: 'v2',
      connectedAgentNum: 2,
      networkPolicyControllerInfo: { networkPolicyNum: 5, addressGroupNum: 4, appliedToGroupNum: 3 },
      controllerConditions: [
        { type: 'ControllerHealthy', status: 'False', lastHeartbeatTime: '2026-11-21T11:59:50Z' },
      ],
    };
    expect(summarizeController(info, { nowMs: NOW, staleAfterMs: 180_000 })).toEqual({
      state: 'Degraded',
      heartbeatAgeSeconds: 10,
      failing: ['ControllerHealthy'],
      version: 'v2',
      connectedAgents: 2,
      networkPolicies: 5,
      addressGroups: 4,
      appliedToGroups: 3,
    });
  });
});
