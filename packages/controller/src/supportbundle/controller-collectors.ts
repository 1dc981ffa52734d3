// What a controller support bundle holds (Antrea pkg/support ControllerDumper, in our layout):
//   logs/controller.log                 the controller's recent log (in-memory ring), --since applied
//   controller/controllerinfo.json      the current AntreaControllerInfo
//   controller/config.json              the effective configuration
//   controller/connected-agents.json    Nodes with an open watch
//   controller/process-report.json      the Node.js diagnostic report (no environment)
//   networkpolicy/{networkpolicies,appliedtogroups,addressgroups}.json  the computed stores
// Every file goes through the Redactor when packed.
import type { BundleCollector, BundleFile, LogRing } from '@antrea-ts/apis';
import { bundleJson, processReport, redactingCollector, sinceCutoff } from '@antrea-ts/apis';

export interface ControllerBundleSource {
  readonly logs?: LogRing;
  controllerInfo(): object;
  config(): object;
  connectedAgents(): readonly string[];
  networkPolicies(): readonly unknown[];
  appliedToGroups(): readonly unknown[];
  addressGroups(): readonly unknown[];
  /** Values known to be secret (tokens, key material), removed wherever they appear. */
  secrets(): Promise<string[]>;
  readonly now: () => Date;
}

export function collectControllerFiles(src: ControllerBundleSource, since: string | undefined): BundleFile[] {
  const files: BundleFile[] = [];
  if (src.logs)
    files.push({ name: 'logs/controller.log', content: src.logs.text(sinceCutoff(since, src.now())) });
  files.push(
    { name: 'controller/controllerinfo.json', content: bundleJson(src.controllerInfo()) },
    { name: 'controller/config.json', content: bundleJson(src.config()) },
    { name: 'controller/connected-agents.json', content: bundleJson([...src.connectedAgents()].sort()) },
    { name: 'controller/process-report.json', content: processReport() },
    { name: 'networkpolicy/networkpolicies.json', content: bundleJson(src.networkPolicies()) },
    { name: 'networkpolicy/appliedtogroups.json', content: bundleJson(src.appliedToGroups()) },
    { name: 'networkpolicy/addressgroups.json', content: bundleJson(src.addressGroups()) },
  );
  return files;
}

export function controllerBundleCollector(src: ControllerBundleSource): BundleCollector {
  return redactingCollector((since) => collectControllerFiles(src, since), src.secrets, src.now);
}
