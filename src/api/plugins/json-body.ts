/**
 * The `application/json` body parser of every interface: Fastify's own (secure-json-parse, `__proto__` and
 * `constructor.prototype` keys refused), except that an empty body is no body (`req.body` undefined) instead of a 400
 * "Body cannot be empty when content-type is set to 'application/json'". Clients (HTTP libraries, SDKs, fetch
 * wrappers) send `Content-Type: application/json` on every request, DELETEs and body-less POSTs included; a route
 * that needs a body still refuses a missing one through its own validation.
 */
import type { FastifyInstance } from 'fastify';

/** Call on the root instance before the interfaces are registered (content-type parsers are inherited). */
export function registerJsonParser(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (req, body, done) => {
    if ((body as string).length === 0) {
      done(null, undefined);
      return;
    }
    parse(req, body as string, done);
  });
}
