import type { ServiceProcess } from './service-process.js';

/**
 * The sum of a service's Prometheus samples named `name` whose labels contain `labelPart`, read
 * from its /metrics now (0 when it has none).
 */
export async function metricSum(service: ServiceProcess, name: string, labelPart = ''): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${service.ready!.metrics_port!}/metrics`)).text();
  let sum = 0;
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    if (line.includes(labelPart)) sum += Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return sum;
}
