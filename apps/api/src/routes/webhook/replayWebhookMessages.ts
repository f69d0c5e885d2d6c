import Type from 'typebox';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { RequestDateTime, RequestUuid } from '#api/schemas/requests.ts';
import { EXAMPLE_ENDPOINT_ID } from '#api/schemas/webhookEndpoints.ts';
import { REPLAY_MAX_MESSAGES, REPLAY_PER_SECOND, replayMessages } from '#api/webhooks/replay/replayMessages.ts';

export default defineRoute({
  method: 'POST',
  url: '/webhook/replay-webhook-messages',
  operationId: 'replay-webhook-messages',
  tag: 'Webhook',
  summary: 'Replay webhook messages',
  description: `Sends again the messages of an endpoint (\`endpointId\`) or of a subscription’s own webhook (\`subscriptionId\`) created from \`since\` to \`until\`: the failed ones, or with \`onlyFailed: false\` the delivered ones too. Each keeps its original \`webhook-id\`, so a receiver that de-duplicates on it processes each once. They are sent at most ${REPLAY_PER_SECOND} a second, up to ${REPLAY_MAX_MESSAGES.toLocaleString('en-US')} per call (replay the rest with a later \`since\`). A message already waiting to be sent is not queued again: asking twice does not send twice. An endpoint’s replayed messages are sent once it is enabled.`,
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      endpointId: Type.Optional(RequestUuid('The endpoint whose messages to send again.')),
      subscriptionId: Type.Optional(RequestUuid('The subscription whose own webhook’s messages to send again.')),
      since: RequestDateTime('Messages created from this time (included).'),
      until: Type.Optional(RequestDateTime('Before this time (excluded); now when absent.')),
      onlyFailed: Type.Optional(
        Type.Boolean({ description: 'Only the failed ones (default true); false: the delivered ones too.' }),
      ),
    },
    { additionalProperties: false },
  ),
  requestExample: { endpointId: EXAMPLE_ENDPOINT_ID, since: '2026-11-20T08:00:00.000Z' },
  response: {
    status: 200,
    description: 'How many messages were queued.',
    schema: Type.Object({ queuedCount: Type.Integer({ minimum: 0 }) }),
    example: { queuedCount: 42 },
  },
  errors: ['NOT_FOUND'],
  async handler({ body, principal, deps }) {
    return { queuedCount: await replayMessages(deps.db, projectOf(principal), body) };
  },
});
