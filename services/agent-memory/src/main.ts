import { startOutbox } from '@agentplatform/events';
import { bootService, serve } from '@agentplatform/service-kit';
import { loadServiceConfig } from './config.js';

/** config -> mongo -> kafka (outbox relay) -> grpc server -> graceful shutdown */
async function main(): Promise<void> {
  const config = loadServiceConfig();
  const runtime = await bootService('agent-memory', config);
  await startOutbox(runtime, config);
  await serve(runtime, config);
}

main().catch((error) => {
  process.stderr.write(`agent-memory failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
