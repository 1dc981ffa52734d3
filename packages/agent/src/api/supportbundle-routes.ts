// system.antrea.io/v1beta1 supportbundles on the agent API, as antctl uses it (Antrea
// pkg/apiserver/registry/system/supportbundle): POST creates (the name must be "agent"), GET
// polls, GET .../download returns the tar.gz, DELETE cancels or forgets.
import {
  SUPPORT_BUNDLE_API_VERSION,
  SUPPORT_BUNDLE_CONTENT_TYPE,
  type SupportBundleState,
} from '@antrea-ts/apis';
import type { FastifyInstance, FastifyReply } from 'fastify';

const BASE = `/apis/${SUPPORT_BUNDLE_API_VERSION}/supportbundles`;

/** A Kubernetes Status body, which antctl's error handling reads. */
function status(reply: FastifyReply, code: number, reason: string, message: string) {
  return reply.code(code).send({
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    details: { name: 'agent', group: 'system.antrea.io', kind: 'supportbundles' },
    code,
  });
}

export function registerSupportBundleRoutes(app: FastifyInstance, bundle: SupportBundleState): void {
  const name = bundle.component;
  app.post<{ Body: { metadata?: { name?: string }; since?: string } | undefined }>(
    BASE,
    async (req, reply) => {
      const body = req.body ?? {};
      if (body.metadata?.name !== name) {
        return status(reply, 403, 'Forbidden', `only resource name "${name}" is allowed`);
      }
      return reply.code(201).send(bundle.create(body));
    },
  );
  const notFound = (reply: FastifyReply, n: string) =>
    status(reply, 404, 'NotFound', `supportBundle.system.antrea.io "${n}" not found`);
  app.get<{ Params: { name: string } }>(`${BASE}/:name`, async (req, reply) =>
    req.params.name === name ? bundle.get() : notFound(reply, req.params.name),
  );
  app.delete<{ Params: { name: string } }>(`${BASE}/:name`, async (req, reply) => {
    if (req.params.name !== name) return notFound(reply, req.params.name);
    bundle.delete();
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success' };
  });
  app.get<{ Params: { name: string } }>(`${BASE}/:name/download`, async (req, reply) => {
    const archive = req.params.name === name ? bundle.download() : undefined;
    if (!archive) return notFound(reply, req.params.name);
    return reply.header('content-type', SUPPORT_BUNDLE_CONTENT_TYPE).send(archive);
  });
}
