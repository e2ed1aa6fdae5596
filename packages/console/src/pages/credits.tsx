import { useEffect, useRef } from 'react';
import { useQuery } from '@tanstack/react-query';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { api, must } from '../api';
import { useSession } from '../session';
import { ErrorNote, Loading, when } from '../ui';

/** DESIGN 5: per plan, requests per minute and day, and the quotas. */
const PLANS: Record<
  string,
  { perMinute: string; perDay: string; agents: string; workflows: string; webhooks: string; memories: string }
> = {
  free: { perMinute: '60', perDay: '1,000', agents: '10', workflows: '10', webhooks: '10', memories: '10,000' },
  starter: { perMinute: '60', perDay: '10,000', agents: '50', workflows: '50', webhooks: '25', memories: '100,000' },
  pro: { perMinute: '600', perDay: '50,000', agents: '500', workflows: '500', webhooks: '100', memories: '1,000,000' },
  enterprise: {
    perMinute: 'unlimited',
    perDay: 'unlimited',
    agents: 'unlimited',
    workflows: 'unlimited',
    webhooks: '1,000',
    memories: 'unlimited',
  },
};

const DAY = 86_400_000;

/**
 * Credits spent per UTC day: a chat reserves (negative) and settles or releases what it did not use
 * (positive), so the day's spending is minus the sum of every movement but grants and purchases.
 */
const SPENDING = ['charge', 'reserve', 'settle', 'release', 'refund'];
export function usedPerDay(ledger: { amount: number; type: string; created_at: string }[]): [number[], number[]] {
  const days = new Map<number, number>();
  for (const entry of ledger) {
    if (!SPENDING.includes(entry.type)) continue;
    const day = Math.floor(Date.parse(entry.created_at) / DAY) * DAY;
    days.set(day, (days.get(day) ?? 0) - entry.amount);
  }
  const sorted = [...days.entries()].sort((a, b) => a[0] - b[0]);
  return [sorted.map(([d]) => d / 1000), sorted.map(([, v]) => Math.max(0, v))];
}

function UsageChart({ data }: { data: [number[], number[]] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!box.current) return;
    const width = Math.min(box.current.clientWidth || 600, 900);
    const plot = new uPlot(
      {
        width,
        height: 220,
        series: [
          {},
          {
            label: 'credits used',
            stroke: '#2457c5',
            fill: 'rgba(36,87,197,0.15)',
            paths: uPlot.paths.bars?.({ size: [0.6, 40] }),
          },
        ],
        axes: [{}, { label: 'credits' }],
        scales: { x: { time: true } },
      },
      data,
      box.current,
    );
    return () => plot.destroy();
  }, [data]);
  return <div ref={box} className="chart" role="img" aria-label="Credits used per day" />;
}

export default function CreditsPage() {
  const session = useSession();
  const credits = useQuery({
    queryKey: ['credits'],
    enabled: session.can('billing:read'),
    queryFn: () => must(api.GET('/billing/credits', { params: { query: { limit: 100 } } })),
  });
  if (!session.can('billing:read'))
    return (
      <section>
        <h1>Credits</h1>
        <p className="muted">Only owners and admins see billing.</p>
      </section>
    );
  const plan = credits.data ? PLANS[credits.data.plan] : undefined;
  return (
    <section aria-labelledby="credits-title">
      <h1 id="credits-title">Credits</h1>
      <ErrorNote error={credits.error} />
      {credits.isPending ? <Loading what="credits" /> : null}
      {credits.data ? (
        <>
          <div className="split2">
            <div className="card">
              <h2>Balance</h2>
              <p className="big" data-testid="balance">
                {credits.data.balance}
              </p>
            </div>
            <div className="card">
              <h2>Plan: {credits.data.plan}</h2>
              {plan ? (
                <p className="small">
                  {plan.perMinute} requests a minute, {plan.perDay} a day · agents {plan.agents} · workflows{' '}
                  {plan.workflows} · webhooks {plan.webhooks} · memories per agent {plan.memories}
                </p>
              ) : null}
            </div>
          </div>
          <div className="card">
            <h2>Credits used per day</h2>
            <UsageChart data={usedPerDay(credits.data.ledger)} />
          </div>
          <div className="table-wrap" tabIndex={0}>
            <table>
              <caption>Ledger (newest first)</caption>
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Type</th>
                  <th scope="col">Amount</th>
                  <th scope="col">Balance after</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody data-testid="ledger">
                {credits.data.ledger.map((e) => (
                  <tr key={e.id}>
                    <td>{when(e.created_at)}</td>
                    <td>{e.type}</td>
                    <td className="num">{e.amount}</td>
                    <td className="num">{e.balance_after}</td>
                    <td>{e.description}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      ) : null}
    </section>
  );
}
