import Type from 'typebox';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { exampleWebhookEndpoint, WebhookEndpoint } from '#api/schemas/webhookEndpoints.ts';
import { listEndpoints } from '#api/webhooks/endpoints/endpoints.ts';

export default defineRoute({
  method: 'GET',
  url: '/webhook/get-webhook-endpoints',
  operationId: 'get-webhook-endpoints',
  tag: 'Webhook',
  summary: 'List your webhook endpoints',
  description:
    'Lists every webhook endpoint of the project, newest first (a project has at most `MAX_WEBHOOK_ENDPOINTS_PER_PROJECT`), with its state: enabled, or why the platform disabled it, and since when its attempts fail. Secrets are masked.',
  auth: { roles: ROLES },
  response: {
    status: 200,
    description: 'The project’s endpoints.',
    schema: Type.Object({ webhookEndpoints: Type.Array(WebhookEndpoint) }),
    example: { webhookEndpoints: [exampleWebhookEndpoint] },
  },
  errors: [],
  async handler({ principal, deps }) {
    return { webhookEndpoints: await listEndpoints(deps.db, projectOf(principal)) };
  },
});
