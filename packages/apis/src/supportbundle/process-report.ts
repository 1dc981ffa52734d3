/**
 * The Node.js diagnostic report of this process (JavaScript stack, native stack, heap spaces,
 * libuv handles, resource usage): what a goroutine and heap profile tell about a Go component.
 * Environment variables are left out: they carry credentials in many deployments. Sockets are
 * listed without network details (peer names).
 */
export function processReport(): string {
  // With network details, the report resolves every socket's peer name synchronously: where no
  // DNS server answers (a Node's netns) that blocks the process for a minute.
  // (Node >= 20.13; @types/node does not declare the property yet.)
  const settings = process.report as { excludeNetwork?: boolean };
  const excluded = settings.excludeNetwork;
  settings.excludeNetwork = true;
  let raw: Record<string, unknown>;
  try {
    raw = process.report.getReport() as unknown as Record<string, unknown>;
  } finally {
    settings.excludeNetwork = excluded;
  }
  const report = { ...raw };
  delete report['environmentVariables'];
  return `${JSON.stringify({ memoryUsage: process.memoryUsage(), report }, null, 2)}\n`;
}
