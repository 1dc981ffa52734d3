// Loads the controller's ConnectivityOracle (@antrea-ts/controller/testing) for the oracle
// provider, on first use only.
import type { OracleFactory, OracleWorld } from './oracle-provider.js';

export async function loadControllerOracle(): Promise<OracleFactory> {
  const { ConnectivityOracle } = await import('@antrea-ts/controller/testing');
  return (world: OracleWorld) => new ConnectivityOracle(world);
}
