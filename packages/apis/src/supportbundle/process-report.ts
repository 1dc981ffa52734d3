/**
 * The Node.js diagnostic report of this process (JavaScript stack, native stack, heap spaces,
 * libuv handles, resource usage): what a goroutine and heap profile tell about a Go component.
 * Environment variables are left out: they carry credentials in many deployments.
 */
export function processReport(): string {
  const report = { ...(process.report.getReport() as unknown as Record<string, unknown>) };
  delete report['environmentVariables'];
  return `${JSON.stringify({ memoryUsage: process.memoryUsage(), report }, null, 2)}\n`;
}
