import type { FastifyError, FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { httpStatusName, NsxApiError, type NsxErrorBody } from '../errors.js';

function body(status: number, errorCode: number, message: string, related: string[] = []): NsxErrorBody {
  return {
    httpStatus: httpStatusName(status),
    error_code: errorCode,
    module_name: 'common-services',
    error_message: message,
    related_errors: related.map((m) => ({
      httpStatus: httpStatusName(status),
      error_code: errorCode,
      module_name: 'common-services',
      error_message: m,
    })),
  };
}

/**
 * JSON bodies like NSX accepts them: an empty body (Go clients send a content-type on DELETE) is no
 * body; malformed JSON is a 400.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (err) {
      done(
        new NsxApiError('NSX_INVALID_REQUEST', `Malformed JSON body: ${(err as Error).message}`),
        undefined,
      );
    }
  });
}

/** Every error leaves the simulator as an NSX ApiError body. */
export function installErrorHandler(app: FastifyInstance, logger: Logger): void {
  app.setErrorHandler((err: FastifyError | NsxApiError, req, reply) => {
    if (err instanceof NsxApiError) {
      return reply.code(err.status).send(err.toBody());
    }
    const fe = err as FastifyError;
    if (fe.validation) {
      const related = fe.validation.map(
        (v) => `${fe.validationContext ?? 'body'}${v.instancePath || ''}: ${v.message ?? 'is invalid'}`,
      );
      return reply
        .code(400)
        .send(body(400, 255, `Field level validation errors: ${related.join('; ')}`, related));
    }
    const status =
      typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500 ? fe.statusCode : 500;
    if (status === 500) logger.error({ err, url: req.url }, 'unexpected error');
    return reply.code(status).send(body(status, status === 500 ? 99 : status, fe.message));
  });
  app.setNotFoundHandler((req, reply) => {
    reply
      .code(404)
      .send(body(404, 600, `The requested URI: ${req.method} ${req.url.split('?')[0]} could not be found.`));
  });
}
