import { startConsumer } from '@agentplatform/events';
import { bootService, serve } from '@agentplatform/service-kit';
import { loadServiceConfig } from './config.js';
import { createEventHandler } from './events/event-handler.js';
import { EventRepository } from './persistence/event.repository.js';

/** config -> mongo -> grpc server -> kafka consumer -> graceful shutdown */
async function main(): Promise<void> {
  const config = loadServiceConfig();
  const runtime = await bootService('webhook', config);
  const events = new EventRepository(runtime.mongo);
  await serve(runtime, config);
  startConsumer(runtime, { ...config, groupId: config.KAFKA_CONSUMER_GROUP }, createEventHandler(events, runtime.logger));
}

main().catch((error) => {
  process.stderr.write(`webhook failed to start: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
