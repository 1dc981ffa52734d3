// Loads the controller's ConnectivityOracle for the oracle provider. The controller keeps it as
// test support (src/testing/connectivity.ts, not exported from its index), so this is the one
// place that reaches into the package: from the built package next to its dist/index.js. Tests
// import the source directly instead (see oracle-cases.test.ts).
import type { ConnectivityOracle } from '../../../packages/controller/src/testing/connectivity.js';
import type { OracleFactory, OracleWorld } from './oracle-provider.js';

export async function loadControllerOracle(): Promise<OracleFactory> {
  const index = import.meta.resolve('@antrea-ts/controller');
  const mod = (await import(new URL('./testing/connectivity.js', index).href)) as {
    ConnectivityOracle: typeof ConnectivityOracle;
  };
  return (world: OracleWorld) => new mod.ConnectivityOracle(world);
}
