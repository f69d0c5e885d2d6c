import { WRITERS } from '#api/http/roles.ts';
import type { RouteDefinition } from '#api/http/route.ts';
import { exampleActivatedFunction } from '#api/schemas/examples.ts';
import { FunctionSelectorBody } from '#api/schemas/requests.ts';

/**
 * What activate- and deactivate-contract-function share: who may call them, the body that names one function of
 * a contract, and the ways finding that function fails.
 */
export const functionSelectorRequest: Pick<
  RouteDefinition<typeof FunctionSelectorBody>,
  'tag' | 'auth' | 'body' | 'requestExample' | 'errors'
> = {
  tag: 'Contract',
  auth: { roles: WRITERS },
  body: FunctionSelectorBody,
  requestExample: { contractId: 7, formattedAbiFunction: exampleActivatedFunction.formattedAbiFunction },
  errors: ['NOT_FOUND', 'FUNCTION_NOT_IN_ABI', 'FUNCTION_NOT_STATE_CHANGING'],
};
