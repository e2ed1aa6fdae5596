import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import Router from '@koa/router';
import { z } from 'zod';
import { DomainError, NotFoundError } from '@agentplatform/service-kit';
import { httpStatusOf } from './error-body.js';
import { closeWhenBodyUnread } from './json-body.js';
import { defineRoute, mountBeforeBody, publicAccess } from './route.js';

const MEBIBYTE = 1024 * 1024;

/**
 * mountBeforeBody on a Koa app as app.ts mounts it (closeWhenBodyUnread first): its checks run before anything reads the
 * body (here a reader that counts the bytes it consumed), and a refusal closes the connection
 * while the body is still arriving.
 */
describe('mountBeforeBody', () => {
  const checked: string[] = [];
  let bodyBytes: number | undefined;
  let server: Server;
  let port: number;

  beforeAll(async () => {
    const route = defineRoute({
      method: 'post',
      path: '/things/:id',
      summary: 'a thing',
      tag: 'things',
      access: publicAccess,
      params: z.object({ id: z.string() }),
      beforeBody: async ({ ctx, params }) => {
        checked.push(params.id);
        // Refused once the whole body has arrived, as a short one does while a backend is asked.
        while (params.id === 'arrived' && !ctx.req.complete) await new Promise((resolve) => setTimeout(resolve, 5));
        if (params.id !== 'known') throw new NotFoundError('Thing');
      },
      handler: async () => undefined,
    });
    const app = new Koa();
    app.use(closeWhenBodyUnread());
    app.use(async (ctx, next) => {
      try {
        await next();
      } catch (error) {
        ctx.status = error instanceof DomainError ? httpStatusOf(error) : 500;
        ctx.body = { error: error instanceof DomainError ? error.code : 'internal_error' };
      }
    });
    const beforeBody = new Router();
    mountBeforeBody(beforeBody, [route]);
    app.use(beforeBody.routes());
    app.use(async (ctx) => {
      let read = 0;
      for await (const chunk of ctx.req) read += (chunk as Buffer).length;
      bodyBytes = read;
      ctx.status = 204;
    });
    server = createServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  beforeEach(() => {
    checked.length = 0;
    bodyBytes = undefined;
  });

  /** Announces `announced` bytes of JSON, sends `sent` of them, and answers the response once it comes. */
  function post(path: string, announced: number, sent: number, contentType = 'application/json') {
    const req = request({
      port,
      path,
      method: 'POST',
      headers: { 'content-type': contentType, 'content-length': announced },
    });
    const answered = new Promise<IncomingMessage>((resolve, reject) => {
      req.once('response', resolve);
      req.once('error', reject);
    });
    req.write(Buffer.alloc(sent, 0x5b));
    if (sent === announced) req.end();
    return { req, answered };
  }

  it('refuses before the body is read, answering while it is still arriving, and closes the connection', async () => {
    const { req, answered } = post('/things/unknown', MEBIBYTE, 64 * 1024);
    const response = await answered;
    expect(response.statusCode).toBe(404);
    expect(response.headers.connection).toBe('close');
    expect(checked).toEqual(['unknown']);
    expect(bodyBytes).toBeUndefined();
    req.destroy();
  });

  it('keeps the connection when the refused body had all arrived', async () => {
    const { answered } = post('/things/arrived', 2, 2);
    const response = await answered;
    response.resume();
    expect(response.statusCode).toBe(404);
    expect(response.headers.connection).not.toBe('close');
  });

  it('lets a request that passes go on to have its body read', async () => {
    const { answered } = post('/things/known', 1000, 1000);
    const response = await answered;
    response.resume();
    expect(response.statusCode).toBe(204);
    expect(checked).toEqual(['known']);
    expect(bodyBytes).toBe(1000);
  });

  it('refuses a body type the route does not take before its checks run', async () => {
    const { req, answered } = post('/things/known', MEBIBYTE, 1024, 'text/plain');
    const response = await answered;
    expect(response.statusCode).toBe(415);
    expect(response.headers.connection).toBe('close');
    expect(checked).toEqual([]);
    req.destroy();
  });
});
