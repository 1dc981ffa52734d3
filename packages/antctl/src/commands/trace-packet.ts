// `antctl trace-packet` (agent mode): asks the agent to run OVS's ofproto/trace for a packet
// described by Pods, Services, OVS ports or IPs, and prints OVS's trace as it is, as Antrea does.
import type { Command } from 'commander';
import { type AntctlDeps, requireMode, runContext } from '../context.js';
import { agentJson } from './common.js';

interface TracePacketOpts {
  port?: string;
  source?: string;
  destination?: string;
  flow?: string;
  addressFamily?: string;
}

export function addTracePacketCommand(program: Command, deps: AntctlDeps): void {
  program
    .command('trace-packet')
    .summary('OVS packet tracing')
    .description(
      "Trace the OVS flows the specified packet traverses, leveraging OVS 'ofproto/trace'. Check ovs-vswitchd(8) manpage for more information about 'ofproto/trace'. (agent mode)",
    )
    .option(
      '-p, --port <port>',
      "OVS port to input the tracing packet: an OVS port name or a local Pod (<Namespace>/<name>). By default the source's port, else the gateway; do not also put in_port in --flow.",
    )
    .option(
      '-S, --source <source>',
      "Source of the packet: an OVS port name, a (local or remote) Pod (<Namespace>/<name>) or an IP address; its IP becomes the packet's source IP (do not also put nw_src in --flow).",
    )
    .option(
      '-D, --destination <destination>',
      "Destination of the packet: an OVS port name, a (local or remote) Pod or a Service (<Namespace>/<name>; a Pod wins over a Service of the same name) or an IP address; its IP (a Service's ClusterIP) becomes the packet's destination IP (do not also put nw_dst in --flow).",
    )
    .option('-f, --flow <flow>', 'The packet headers, in ovs-ofctl(8) flow syntax, e.g. tcp,tcp_dst=80')
    .option(
      '-F, --addressFamily <family>',
      'Address family of the packet: 4 or 6. By default taken from --flow (IPv4 when it names none).',
    )
    .addHelpText(
      'after',
      `
Examples:
  Trace an IP packet between two Pods
  $ antctl trace-packet -S ns1/pod1 -D ns2/pod2
  Trace a TCP packet from a local Pod to a Service
  $ antctl trace-packet -S ns1/pod1 -D ns2/svc2 -f tcp,tcp_dst=80
  Trace a UDP packet from a Pod to an IP address
  $ antctl trace-packet -S ns1/pod1 -D 10.1.2.3 -f udp,udp_dst=1234
  Trace an ARP packet from a local Pod
  $ antctl trace-packet -p ns1/pod1 -f arp`,
    )
    .action(async (opts: TracePacketOpts, cmd: Command) => {
      const ctx = runContext(deps, cmd);
      requireMode(ctx, 'agent', 'trace-packet');
      const res = await agentJson<{ result?: string }>(
        ctx,
        {
          path: '/ovstracing',
          query: {
            port: opts.port,
            source: opts.source,
            destination: opts.destination,
            flow: opts.flow,
            addressFamily: opts.addressFamily,
          },
        },
        'ovstracing',
      );
      ctx.out(res.result ?? '');
    });
}
