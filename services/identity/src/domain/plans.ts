/** Plans of DESIGN.md section 5. The limits themselves are the gateway's concern. */
export const PLAN_NAMES = ['free', 'starter', 'pro', 'enterprise'] as const;
export type PlanName = (typeof PLAN_NAMES)[number];
