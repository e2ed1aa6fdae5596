import path from 'node:path';

/** The repository root (this file is compiled to packages/testing/dist/). */
export const REPO_ROOT = path.resolve(__dirname, '..', '..', '..');

export interface LocalInfra {
  fetchArtifacts(options?: { quiet?: boolean }): Promise<void>;
  startMongo(options: { port?: number; dataDir?: string | null; logFile?: string }): Promise<{
    uri: string;
    port: number;
    stop(): Promise<void>;
  }>;
  startKafka(options: { port?: number; dataDir: string; logFile?: string; partitions?: number }): Promise<{
    brokers: string[];
    port: number;
    stop(): Promise<void>;
  }>;
}

/** The local infrastructure scripts under deploy/local (plain CommonJS, shared with `npm start`). */
export function localInfra(): LocalInfra {
  return require(path.join(REPO_ROOT, 'deploy', 'local', 'infra.js')) as LocalInfra;
}
