import { z } from 'zod';
import { limitParam } from '../../http/paging.js';
import { defineRoute, operatorOnly, ownerOnly, requireScope, type Route } from '../../http/route.js';
import type { RouteDeps } from '../deps.js';

const creditsQuery = z.object({ limit: limitParam });

const creditsResponse = z.object({
  balance: z.number().int(),
  plan: z.string(),
  ledger: z.array(
    z.object({
      id: z.string(),
      type: z
        .enum(['grant', 'charge', 'refund', 'purchase', 'reserve', 'settle', 'release'])
        .describe(
          'reserve holds the most a chat or run can cost before it starts; its settle gives back what it did not use, or its release all of it',
        ),
      amount: z.number().int().describe('Signed: charges and reservations are negative'),
      balance_after: z.number().int(),
      description: z.string(),
      created_at: z.string(),
    }),
  ),
});

const purchaseBody = z.object({ credits: z.number().int().min(1).max(1_000_000) });

const purchaseResponse = z.object({
  id: z.string(),
  credits: z.number().int(),
  balance: z.number().int(),
  created_at: z.string(),
});

const grantParams = z.object({ tenant_id: z.string().min(1).max(64) });

function purchaseToJson(answer: { purchaseId: string; credits: number; balance: number; createdAt: string }) {
  return { id: answer.purchaseId, credits: answer.credits, balance: answer.balance, created_at: answer.createdAt };
}

/**
 * docs/design.md section 5: the tenant's balance and ledger, purchases by its owner (refused with
 * 403 by identity unless BILLING_SELF_SERVICE), and the operator's grants, served only when
 * OPERATOR_TOKEN is set (else the path is a 404 like any other unknown route).
 */
export function billingRoutes({ backends, config }: RouteDeps): Route[] {
  const operatorRoutes = config.OPERATOR_TOKEN
    ? [
        defineRoute({
          method: 'post',
          path: '/operator/tenants/:tenant_id/credits',
          summary:
            'Grant a tenant credits (operator token); the same ledger entry and billing.purchase.completed as a purchase',
          tag: 'operator',
          access: operatorOnly,
          idempotent: true,
          keyReachesBackend: true,
          params: grantParams,
          body: purchaseBody,
          example: { credits: 500 },
          status: 201,
          response: purchaseResponse,
          handler: async ({ body, params, ctx }) =>
            purchaseToJson(
              await backends.identity.grantCredits({
                tenantId: params.tenant_id,
                credits: body.credits,
                // The operator has no tenant to scope the gateway's Idempotency-Key records by:
                // the ledger's key alone makes a retry grant once.
                idempotencyKey: ctx.get('idempotency-key'),
              }),
            ),
        }),
      ]
    : [];
  return [
    defineRoute({
      method: 'get',
      path: '/billing/credits',
      summary: 'Credit balance and the most recent ledger entries',
      tag: 'billing',
      access: requireScope('billing:read'),
      query: creditsQuery,
      response: creditsResponse,
      handler: async ({ query, caller }) => {
        const answer = await backends.identity.getCredits({ tenantId: caller.tenantId, limit: query.limit });
        return {
          balance: answer.balance,
          plan: answer.plan,
          ledger: answer.entries.map((e) => ({
            id: e.id,
            type: e.type,
            amount: e.amount,
            balance_after: e.balanceAfter,
            description: e.description,
            created_at: e.createdAt,
          })),
        };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/billing/purchases',
      summary: 'Buy credits (tenant owner only, in self-service mode: else 403); fires billing.purchase.completed',
      tag: 'billing',
      access: ownerOnly,
      idempotent: true,
      keyReachesBackend: true,
      body: purchaseBody,
      example: { credits: 500 },
      status: 201,
      response: purchaseResponse,
      handler: async ({ body, caller, ctx }) => {
        const answer = await backends.identity.purchaseCredits({
          tenantId: caller.tenantId,
          userId: caller.userId,
          credits: body.credits,
          // The same key reaches the ledger, so even a retry that bypasses the gateway's store cannot double-buy.
          idempotencyKey: ctx.get('idempotency-key'),
        });
        return purchaseToJson(answer);
      },
    }),
    ...operatorRoutes,
  ];
}
