import { HOOK_ID } from '@agentplatform/service-kit';
import type { Backends } from '../clients/backends';
import { AnonymousLimiter } from '../http/anonymous-limit';
import { hookRoutes } from '../routes/hooks/index';
import { buildOpenApiDocument } from './openapi-document';

interface Operation {
  security: unknown[];
  parameters: Array<{ name: string; in: string; schema: { pattern?: string } }>;
  responses: Record<string, unknown>;
  requestBody?: { content: Record<string, unknown> };
}

describe('the OpenAPI document', () => {
  // Route definitions read their dependencies only when a request is handled.
  const hooks = hookRoutes({ backends: {} as Backends, anonymous: new AnonymousLimiter() });
  const document = buildOpenApiDocument({ routes: [], hookRoutes: hooks }) as {
    paths: Record<string, { servers?: Array<{ url: string }>; post: Operation }>;
  };

  it('describes the public hook routes at the root, with the hook id pattern and their answers', () => {
    for (const path of ['/hooks/{hook_id}', '/hooks/{hook_id}/{path}']) {
      const item = document.paths[path]!;
      expect(item.servers).toEqual([expect.objectContaining({ url: '/' })]);
      const post = item.post;
      expect(post.security).toEqual([]);
      expect(post.parameters.find((p) => p.name === 'hook_id')).toMatchObject({
        in: 'path',
        schema: { pattern: HOOK_ID.source },
      });
      expect(Object.keys(post.requestBody!.content)).toEqual(['application/json', 'application/x-www-form-urlencoded']);
      for (const status of ['200', '202', '404', '413', '429']) expect(post.responses).toHaveProperty(status);
      expect(post.responses).not.toHaveProperty('401');
    }
    expect(document.paths['/hooks/{hook_id}/{path}']!.post.parameters.map((p) => p.name)).toEqual(['hook_id', 'path']);
  });
});
