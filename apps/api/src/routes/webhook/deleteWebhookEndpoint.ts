import Type from 'typebox';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { RequestUuid } from '#api/schemas/requests.ts';
import { EXAMPLE_ENDPOINT_ID } from '#api/schemas/webhookEndpoints.ts';
import { deleteEndpoint } from '#api/webhooks/endpoints/endpoints.ts';

export default defineRoute({
  method: 'POST',
  url: '/webhook/delete-webhook-endpoint',
  operationId: 'delete-webhook-endpoint',
  tag: 'Webhook',
  summary: 'Delete a webhook endpoint',
  description:
    'Deletes the endpoint: nothing more is sent to it, and its pending deliveries and attempt log go with it.',
  auth: { roles: WRITERS },
  body: Type.Object({ id: RequestUuid('The endpoint id.') }, { additionalProperties: false }),
  requestExample: { id: EXAMPLE_ENDPOINT_ID },
  response: {
    status: 200,
    description: 'What was deleted.',
    schema: Type.Object({ message: Type.String() }),
    example: { message: `Webhook endpoint ${EXAMPLE_ENDPOINT_ID} is deleted` },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    await deleteEndpoint(deps.db, projectOf(principal), body.id);
    return { message: `Webhook endpoint ${body.id} is deleted` };
  },
});
