import Type from 'typebox';
import { callContractFunction, READ_MAX_RESULT_BYTES, READ_TIMEOUT_MS } from '#api/contracts/callFunction.ts';
import { projectOf } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { ROLES } from '#api/projects/users.ts';
import { AbiString, ContractIdField, FunctionArgsField } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/contract/call-contract-function',
  operationId: 'call-contract-function',
  tag: 'Contract',
  summary: 'Read a view or pure function',
  description: `Calls a view or pure function of an imported contract (\`eth_call\` on the contract's network) and answers its outputs. No activation is needed and nothing is sent: any role may read. \`functionArgs\` are converted as execute-transaction converts them, and each output comes back in the same encoding. The block tag is resolved to a number first and the call runs at that number, which the answer gives. A read uses at most 30,000,000 gas, answers at most ${READ_MAX_RESULT_BYTES} bytes of return data and takes at most ${READ_TIMEOUT_MS / 1000} s.`,
  auth: { roles: ROLES },
  body: Type.Object(
    {
      contractId: ContractIdField,
      formattedAbiFunction: AbiString('Human-readable ABI of a view or pure function, as in the contract’s ABI.'),
      functionArgs: FunctionArgsField,
      blockTag: Type.Optional(
        Type.String({
          pattern: '^(latest|safe|finalized|0|[1-9][0-9]{0,15})$',
          description: '`latest` (the default), `safe`, `finalized`, or a block number in decimal.',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  requestExample: {
    contractId: 7,
    formattedAbiFunction: 'function balanceOf(address owner) view returns (uint256)',
    functionArgs: ['0x70997970C51812dc3A010C7d01b50e0d17dc79C8'],
    blockTag: 'latest',
  },
  response: {
    status: 200,
    description: 'The outputs, and the block they were read at.',
    schema: Type.Object({
      result: Type.Array(Type.String(), {
        description:
          'One string per output: integers in decimal, addresses checksummed, bytes as 0x hex, true/false, strings as they are; arrays and tuples as JSON text (a tuple as an object by component name when every component has one).',
      }),
      blockNumber: Type.Integer({ minimum: 0, description: 'The block the call was evaluated at.' }),
    }),
    example: { result: ['1500'], blockNumber: 42 },
  },
  errors: [
    'NOT_FOUND',
    'FUNCTION_NOT_IN_ABI',
    'FUNCTION_NOT_READABLE',
    'CALL_REVERTED',
    'CALL_RESULT_TOO_LARGE',
    'BLOCK_NOT_REACHED',
    'NETWORK_NOT_CONFIGURED',
    'CHAIN_UNAVAILABLE',
  ],
  async handler({ body, principal, deps }) {
    return callContractFunction(deps, projectOf(principal), body);
  },
});
