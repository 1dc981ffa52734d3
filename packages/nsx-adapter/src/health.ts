/** Health of one adapter component, in the shape of NSX's ComponentConditionItem lists. */
export type ComponentStatus = 'UP' | 'DEGRADED' | 'DOWN' | 'UNKNOWN';

export interface ComponentCondition {
  type: string;
  status: 'TRUE' | 'FALSE' | 'UNKNOWN';
  reason?: string;
  message?: string;
  last_transition_time?: number;
}

export interface ComponentHealth {
  status: ComponentStatus;
  conditions: ComponentCondition[];
}
