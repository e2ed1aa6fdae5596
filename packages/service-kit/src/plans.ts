/**
 * The plans of docs/design.md section 5, defined once: their names, request rates and quotas. Identity
 * assigns a plan to each tenant; the gateway enforces its rates; each service enforces the quota
 * of what it owns.
 */
export const PLAN_NAMES = ['free', 'starter', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];

export function isPlanName(value: string): value is PlanName {
  return (PLAN_NAMES as readonly string[]).includes(value);
}

/** Requests per minute and per day; null is unlimited. */
export const PLAN_RATE_LIMITS: Readonly<Record<PlanName, { perMinute: number; perDay: number } | null>> = {
  free: { perMinute: 60, perDay: 1_000 },
  starter: { perMinute: 60, perDay: 10_000 },
  pro: { perMinute: 600, perDay: 50_000 },
  enterprise: null,
};

/** What a quota counts; the name is also the `field` of a `quota_exceeded` error. */
export type QuotaKind = 'agents' | 'workflows' | 'webhooks' | 'memories';

/** Per tenant, except `memories`, which counts per agent; null is unlimited. */
export const PLAN_QUOTAS: Readonly<Record<PlanName, Readonly<Record<QuotaKind, number | null>>>> = {
  free: { agents: 10, workflows: 10, webhooks: 10, memories: 10_000 },
  starter: { agents: 50, workflows: 50, webhooks: 25, memories: 100_000 },
  pro: { agents: 500, workflows: 500, webhooks: 100, memories: 1_000_000 },
  enterprise: { agents: null, workflows: null, webhooks: 1_000, memories: null },
};

/**
 * The quota of a plan. A plan this build does not know (a newer identity during a rolling
 * upgrade, or a caller that sent none) gets the free plan's: the safe side.
 */
export function planQuota(plan: string | undefined, kind: QuotaKind): number | null {
  return PLAN_QUOTAS[plan && isPlanName(plan) ? plan : 'free'][kind];
}

/**
 * The smallest gap a workflow schedule may leave between two runs, per plan (docs/workflow-engine.md,
 * "Schedules"): a schedule that fires more often is refused when it is saved.
 */
export const PLAN_SCHEDULE_MIN_INTERVAL_MS: Readonly<Record<PlanName, number>> = {
  free: 60_000,
  starter: 30_000,
  pro: 10_000,
  enterprise: 1_000,
};

/** The minimum schedule interval of a plan; an unknown plan gets the free plan's (as planQuota). */
export function planScheduleMinIntervalMs(plan: string | undefined): number {
  return PLAN_SCHEDULE_MIN_INTERVAL_MS[plan && isPlanName(plan) ? plan : 'free'];
}

/**
 * Workflow executions one tenant may have in flight (running, child runs and runs waiting for a
 * slot included), per plan (docs/design.md section 5, docs/workflow-engine.md "Execution slots"): over
 * it, a manual execute is refused with 429 `rate_limit_exceeded`.
 */
export const PLAN_EXECUTIONS_IN_FLIGHT: Readonly<Record<PlanName, number>> = {
  free: 50,
  starter: 200,
  pro: 1_000,
  enterprise: 5_000,
};

/** The executions in flight a plan allows; an unknown plan gets the free plan's (as planQuota). */
export function planExecutionsInFlight(plan: string | undefined): number {
  return PLAN_EXECUTIONS_IN_FLIGHT[plan && isPlanName(plan) ? plan : 'free'];
}
