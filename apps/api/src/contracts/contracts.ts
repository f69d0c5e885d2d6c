import { getAddress } from 'viem';
import type { NetworkId } from '#api/config/networks.ts';
import { type Db, UniqueViolationError } from '#api/db/db.ts';
import { ApiError } from '#api/errors/ApiError.ts';
import { findActivatableFunction, parseFormattedAbi } from './abi.ts';

export interface Contract {
  id: number;
  projectId: number;
  networkId: NetworkId;
  address: string;
  type: string;
  formattedAbi: string[];
}

export interface ContractActivatedFunction {
  id: number;
  contractId: number;
  formattedAbiFunction: string;
}

const CONTRACT_COLUMNS = `id, project_id AS "projectId", network_id AS "networkId", address, type,
  formatted_abi AS "formattedAbi"`;

/** Imports a contract: every ABI entry must parse (400 naming the entry); one address per network per project. */
export async function importContract(
  db: Db,
  projectId: number,
  input: { networkId: NetworkId; address: string; formattedAbi: string[] },
): Promise<Contract> {
  parseFormattedAbi(input.formattedAbi);
  const address = getAddress(input.address.toLowerCase());
  try {
    const { rows } = await db.query<Contract>(
      `INSERT INTO contracts (project_id, network_id, address, type, formatted_abi)
       VALUES ($1, $2, $3, 'imported', $4) RETURNING ${CONTRACT_COLUMNS}`,
      [projectId, input.networkId, address, JSON.stringify(input.formattedAbi)],
    );
    return rows[0] as Contract;
  } catch (error) {
    if (error instanceof UniqueViolationError) {
      const { rows } = await db.query<{ id: number }>(
        'SELECT id FROM contracts WHERE project_id = $1 AND network_id = $2 AND address = $3',
        [projectId, input.networkId, address],
      );
      throw new ApiError('CONFLICT', {
        reason: `Contract ${address} on network ${input.networkId} is already imported (contract ${rows[0]?.id ?? '?'})`,
      });
    }
    throw error;
  }
}

export async function listContracts(db: Db, projectId: number): Promise<Contract[]> {
  const { rows } = await db.query<Contract>(
    `SELECT ${CONTRACT_COLUMNS} FROM contracts WHERE project_id = $1 ORDER BY id`,
    [projectId],
  );
  return rows;
}

/** A contract of the project; another project's contract is a 404, as if it did not exist. */
export async function getContract(db: Db, projectId: number, contractId: number): Promise<Contract> {
  const { rows } = await db.query<Contract>(
    `SELECT ${CONTRACT_COLUMNS} FROM contracts WHERE project_id = $1 AND id = $2`,
    [projectId, contractId],
  );
  if (!rows[0]) throw new ApiError('NOT_FOUND', { resource: 'Contract', id: contractId });
  return rows[0];
}

/** Activates a state-changing function of the contract; activating it again returns the same activation. */
export async function activateFunction(
  db: Db,
  projectId: number,
  input: { contractId: number; formattedAbiFunction: string },
): Promise<ContractActivatedFunction> {
  const contract = await getContract(db, projectId, input.contractId);
  const fn = findActivatableFunction(contract, input.formattedAbiFunction);
  const { rows } = await db.query<ContractActivatedFunction>(
    `INSERT INTO contract_activated_functions (contract_id, formatted_abi_function, signature)
     VALUES ($1, $2, $3)
     ON CONFLICT (contract_id, signature) DO UPDATE SET active = true,
       updated_at = CASE WHEN contract_activated_functions.active THEN contract_activated_functions.updated_at
                         ELSE now() END
     RETURNING id, contract_id AS "contractId", formatted_abi_function AS "formattedAbiFunction"`,
    [contract.id, fn.formatted, fn.signature],
  );
  return rows[0] as ContractActivatedFunction;
}

/** Deactivates a function; deactivating one that is not active is not an error. */
export async function deactivateFunction(
  db: Db,
  projectId: number,
  input: { contractId: number; formattedAbiFunction: string },
): Promise<string> {
  const contract = await getContract(db, projectId, input.contractId);
  const fn = findActivatableFunction(contract, input.formattedAbiFunction);
  const { rowCount } = await db.query(
    `UPDATE contract_activated_functions SET active = false, updated_at = now()
     WHERE contract_id = $1 AND signature = $2 AND active`,
    [contract.id, fn.signature],
  );
  return rowCount
    ? `Function ${fn.signature} of contract ${contract.id} is deactivated`
    : `Function ${fn.signature} of contract ${contract.id} was not active; nothing changed`;
}

export async function listActivatedFunctions(
  db: Db,
  projectId: number,
  contractId: number,
): Promise<ContractActivatedFunction[]> {
  const contract = await getContract(db, projectId, contractId);
  const { rows } = await db.query<ContractActivatedFunction>(
    `SELECT id, contract_id AS "contractId", formatted_abi_function AS "formattedAbiFunction"
     FROM contract_activated_functions WHERE contract_id = $1 AND active ORDER BY id`,
    [contract.id],
  );
  return rows;
}
