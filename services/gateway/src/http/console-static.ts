import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context } from 'koa';

/**
 * The console's own policy (DESIGN section 10): everything from this origin, no inline script,
 * nothing embedded elsewhere. React and the graph library set styles through the DOM, which CSP
 * does not restrict, so no 'unsafe-inline' is needed.
 */
const CONSOLE_CSP =
  "default-src 'self'; base-uri 'self'; object-src 'none'; frame-ancestors 'none'; form-action 'self'";

/** Vite writes content-hashed names under assets/: a changed file is a new name. */
const HASHED_CACHE = 'public, max-age=31536000, immutable';

interface ConsoleFile {
  body: Buffer;
  type: string;
}

/**
 * The console's build in this checkout (packages/console/dist), beside the gateway's own folder:
 * src/http and dist/http are equally deep. The console is an app, so the gateway does not import
 * it as a package; an image that serves the console copies its build to the same place.
 */
const CONSOLE_DIST = path.resolve(__dirname, '..', '..', '..', '..', 'packages', 'console', 'dist');

/** Every file of the build by its URL path, read once: only these paths are served (no traversal). */
function readBuild(dir: string): Map<string, ConsoleFile> {
  const files = new Map<string, ConsoleFile>();
  const walk = (at: string): void => {
    for (const entry of readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      if (entry.isDirectory()) walk(full);
      else
        files.set(path.relative(dir, full).split(path.sep).join('/'), {
          body: readFileSync(full),
          type: path.extname(entry.name),
        });
    }
  };
  walk(dir);
  return files;
}

/**
 * `GET /console` and below: the single-page console. A built file is served as is (hashed assets
 * cached for a year); any other path is the app's own route and gets index.html (no-cache: browsers
 * ask again, so a new build, served after a restart, reaches them). Read on the first request, so an
 * idle gateway holds none of it.
 */
export function mountConsoleRoutes(router: Router, dir: string = CONSOLE_DIST): void {
  let files: Map<string, ConsoleFile> | undefined;
  const handler = (ctx: Context): void => {
    if (!files) {
      try {
        files = readBuild(dir);
      } catch {
        // Not built (yet): looked for again on the next request.
      }
    }
    ctx.set('Content-Security-Policy', CONSOLE_CSP);
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    const rest = ctx.path.replace(/^\/console\/?/, '');
    const file = files?.get(rest);
    if (file && rest !== 'index.html') {
      if (rest.startsWith('assets/')) ctx.set('Cache-Control', HASHED_CACHE);
      ctx.type = file.type;
      ctx.body = file.body;
      return;
    }
    const index = files?.get('index.html');
    if (!index) {
      ctx.status = 404;
      ctx.type = 'text/plain';
      ctx.body = 'The console is not built: run `npm run build` (or `npx nx run console:build`).\n';
      return;
    }
    // A missing asset is a 404, not the app's page served as a script.
    if (rest.startsWith('assets/')) {
      ctx.status = 404;
      return;
    }
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'html';
    ctx.body = index.body;
  };
  router.get('/console{/*rest}', handler);
}
