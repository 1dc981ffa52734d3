// system.antrea.io/v1beta1 supportbundles on the controller's API server (reached through the
// aggregator): create (name "controller"), get, and the download subresource with the archive.
import { SUPPORT_BUNDLE_CONTENT_TYPE, type SupportBundleState } from '@antrea-ts/apis';
import { ApiError, type ApiObject, RawResponse, type ResourceRegistry } from '@antrea-ts/apiserver';

export const SUPPORT_BUNDLE_GROUP = 'system.antrea.io';

export function registerSupportBundleResource(registry: ResourceRegistry, bundle: SupportBundleState): void {
  const name = bundle.component;
  const notFound = (n: string) =>
    ApiError.notFound({ group: SUPPORT_BUNDLE_GROUP, resource: 'supportbundles' }, n);
  registry.register(SUPPORT_BUNDLE_GROUP, 'v1beta1', {
    name: 'supportbundles',
    singularName: 'supportbundle',
    kind: 'SupportBundle',
    namespaced: false,
    verbs: ['create', 'get'],
    handler: {
      create(req) {
        const body = (req.body ?? {}) as { metadata?: { name?: string }; since?: string };
        if (body.metadata?.name !== name) {
          throw new ApiError(403, 'Forbidden', `only resource name "${name}" is allowed`, {
            group: SUPPORT_BUNDLE_GROUP,
            kind: 'supportbundles',
          });
        }
        return bundle.create(body) as unknown as ApiObject;
      },
      get(req) {
        if (req.info.name !== name) throw notFound(req.info.name);
        return bundle.get() as unknown as ApiObject;
      },
    },
    subresources: [
      {
        name: 'download',
        kind: 'SupportBundle',
        verbs: ['get'],
        handler: {
          get(req) {
            const archive = req.info.name === name ? bundle.download() : undefined;
            if (!archive) throw notFound(req.info.name);
            return new RawResponse(SUPPORT_BUNDLE_CONTENT_TYPE, archive);
          },
        },
      },
    ],
  });
}
