import type { FastifyInstance } from 'fastify';
import type { SimContext } from '../context.js';
import { NsxApiError, notFound } from '../errors.js';
import { type ListQuery, listQuerySchema, paginate } from '../http/list.js';
import { inspectCertificate } from '../policy/kinds.js';
import type { PrincipalIdentityRecord } from '../state/types.js';

const PI_URL = '/api/v1/trust-management/principal-identities';

const withCertificateBody = {
  type: 'object',
  required: ['name', 'node_id', 'certificate_pem'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 255 },
    node_id: { type: 'string', minLength: 1, maxLength: 255 },
    role: { type: 'string' },
    roles_for_paths: { type: 'array', items: { type: 'object' } },
    is_protected: { type: 'boolean' },
    certificate_pem: { type: 'string', minLength: 1 },
    display_name: { type: 'string' },
    description: { type: 'string' },
  },
};

function render(pi: PrincipalIdentityRecord) {
  const { certificate_pem: _pem, fingerprint256: _fp, ...rest } = pi;
  return { ...rest, resource_type: 'PrincipalIdentity', display_name: pi.name };
}

/** Principal identities with certificates: what registration creates and what client-cert auth checks. */
export function registerPrincipalIdentityRoutes(app: FastifyInstance, ctx: SimContext): void {
  const pis = () => ctx.store.state.principal_identities;

  app.post(`${PI_URL}/with-certificate`, { schema: { body: withCertificateBody } }, async (req, reply) => {
    const body = req.body as Record<string, unknown> & {
      name: string;
      node_id: string;
      certificate_pem: string;
    };
    const cert = inspectCertificate(body.certificate_pem);
    if (typeof cert === 'string') throw new NsxApiError('NSX_INVALID_OBJECT', cert);
    for (const p of Object.values(pis())) {
      if (p.name === body.name && p.node_id === body.node_id) {
        throw new NsxApiError(
          'NSX_ALREADY_EXISTS',
          `Principal identity ${body.name} with node_id ${body.node_id} already exists.`,
        );
      }
      if (p.fingerprint256 === cert.fingerprint256) {
        throw new NsxApiError(
          'NSX_CERTIFICATE_CONFLICT',
          `The certificate is already used by principal identity ${p.name}.`,
        );
      }
    }
    const pi: PrincipalIdentityRecord = {
      id: ctx.ids.uuid(),
      name: body.name,
      node_id: body.node_id,
      is_protected: body['is_protected'] === true,
      certificate_id: ctx.ids.uuid(),
      certificate_pem: body.certificate_pem,
      fingerprint256: cert.fingerprint256,
      _create_time: ctx.clock.now(),
      _revision: 0,
    };
    if (typeof body['role'] === 'string') pi.role = body['role'];
    if (Array.isArray(body['roles_for_paths'])) pi.roles_for_paths = body['roles_for_paths'];
    pis()[pi.id] = pi;
    ctx.store.commit('identity');
    return reply.code(201).send(render(pi));
  });

  app.get(PI_URL, { schema: { querystring: listQuerySchema } }, async (req) =>
    paginate(Object.values(pis()).map(render), req.query as ListQuery),
  );
  app.get(`${PI_URL}/:piId`, async (req) => {
    const pi = pis()[(req.params as { piId: string }).piId];
    if (!pi) throw notFound(`PrincipalIdentity/${(req.params as { piId: string }).piId}`);
    return render(pi);
  });
  app.delete(`${PI_URL}/:piId`, async (req, reply) => {
    const id = (req.params as { piId: string }).piId;
    if (Object.hasOwn(pis(), id)) {
      delete pis()[id];
      ctx.store.commit('identity');
    }
    return reply.code(200).send();
  });
}
