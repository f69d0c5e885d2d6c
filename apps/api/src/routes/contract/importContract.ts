import Type from 'typebox';
import { importContract } from '#api/contracts/contracts.ts';
import { projectOf, WRITERS } from '#api/http/roles.ts';
import { defineRoute } from '#api/http/route.ts';
import { Contract, NetworkIdSchema } from '#api/schemas/entities.ts';
import { exampleContract } from '#api/schemas/examples.ts';
import { AbiString, RequestAddress } from '#api/schemas/requests.ts';

export default defineRoute({
  method: 'POST',
  url: '/contract/import-contract',
  operationId: 'import-contract',
  tag: 'Contract',
  summary: 'Import a contract',
  description:
    'Adds a deployed contract to the project with its human-readable ABI. Each ABI entry must parse, and the ABI must stay within the limits of ABIs (500 entries of at most 4,096 characters, 200 struct definitions, types at most 16 levels deep, 10,000 components per entry and per ABI, struct uses counted in full): a 400 names the first entry past a limit, and the limit. The address is stored checksummed. Importing the same address on the same network twice answers 409.',
  auth: { roles: WRITERS },
  body: Type.Object(
    {
      networkId: NetworkIdSchema,
      address: RequestAddress,
      formattedAbi: Type.Array(AbiString('One ABI entry, e.g. `function mint(address to, uint256 amount)`.'), {
        minItems: 1,
        maxItems: 500,
        description: 'The contract’s human-readable ABI.',
      }),
    },
    { additionalProperties: false },
  ),
  requestExample: {
    networkId: exampleContract.networkId,
    address: exampleContract.address,
    formattedAbi: exampleContract.formattedAbi,
  },
  response: {
    status: 201,
    description: 'The imported contract.',
    schema: Type.Object({ contract: Contract }),
    example: { contract: exampleContract },
  },
  errors: ['CONFLICT'],
  errorExamples: {
    CONFLICT: {
      reason: 'Contract 0x5FbDB2315678afecb367f032d93F642f64180aa3 on network 1337 is already imported (contract 7)',
    },
  },
  async handler({ body, principal, deps }) {
    return { contract: await importContract(deps.db, projectOf(principal), body) };
  },
});
