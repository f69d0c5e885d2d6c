import { type Abi, getAddress } from 'viem';
import type { NetworkId } from '#api/config/networks.ts';
import { type Db, UniqueViolationError } from '#api/db/db.ts';
import { ApiError, validationError } from '#api/errors/ApiError.ts';
import {
  type CallableItem,
  findContractFunction,
  parseActivatedFunction,
  parseFormattedAbiAsync,
  refuseValueOnNonPayable,
} from './abi.ts';

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
  /** Wei, as decimal strings. */
  maxValuePerTransaction: string;
  maxValuePerDay: string;
}

const ACTIVATED_FUNCTION_COLUMNS = `id, contract_id AS "contractId", formatted_abi_function AS "formattedAbiFunction",
  max_value_per_transaction::text AS "maxValuePerTransaction", max_value_per_day::text AS "maxValuePerDay"`;

const CONTRACT_COLUMNS = `id, project_id AS "projectId", network_id AS "networkId", address, type,
  formatted_abi AS "formattedAbi"`;

/**
 * Imports a contract: the ABI must be within the limits and every entry must parse (400 naming the entry); one
 * address per network per project. The parsed ABI is stored with it, so nothing parses it again.
 */
export async function importContract(
  db: Db,
  projectId: number,
  input: { networkId: NetworkId; address: string; formattedAbi: string[] },
): Promise<Contract> {
  const abi = await parseFormattedAbiAsync(input.formattedAbi);
  const address = getAddress(input.address.toLowerCase());
  try {
    const { rows } = await db.query<Contract>(
      `INSERT INTO contracts (project_id, network_id, address, type, formatted_abi, abi)
       VALUES ($1, $2, $3, 'imported', $4, $5) RETURNING ${CONTRACT_COLUMNS}`,
      [projectId, input.networkId, address, JSON.stringify(input.formattedAbi), JSON.stringify(abi)],
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

/**
 * The contract's parsed ABI: stored at import; a contract imported before parsed ABIs were stored has its ABI
 * parsed now (within the limits, else a 400) and stored.
 */
export async function parsedAbi(db: Db, contract: Contract): Promise<Abi> {
  const { rows } = await db.query<{ abi: Abi | null }>('SELECT abi FROM contracts WHERE id = $1', [contract.id]);
  if (rows[0]?.abi) return rows[0].abi;
  let abi: Abi;
  try {
    abi = await parseFormattedAbiAsync(contract.formattedAbi, 'formattedAbi');
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    const problem = error.details?.map((d) => `${d.field} ${d.message}`).join('; ') ?? error.message;
    throw validationError([{ field: 'body.contractId', message: `the contract's ABI is refused: ${problem}` }]);
  }
  await db.query('UPDATE contracts SET abi = $2 WHERE id = $1 AND abi IS NULL', [contract.id, JSON.stringify(abi)]);
  return abi;
}

/** The parsed ABI of a contract by id, for decoding reverts: never throws on an ABI it cannot parse (gives []). */
export async function contractAbiForErrors(db: Db, contractId: number): Promise<Abi> {
  const { rows } = await db.query<{ abi: Abi | null; formattedAbi: string[] }>(
    'SELECT abi, formatted_abi AS "formattedAbi" FROM contracts WHERE id = $1',
    [contractId],
  );
  const row = rows[0];
  if (!row) return [];
  if (row.abi) return row.abi;
  try {
    return await parseFormattedAbiAsync(row.formattedAbi);
  } catch {
    return [];
  }
}

/**
 * The parsed function of an activation: stored at activation; for one stored before, parsed against its contract's
 * structs now and stored.
 */
export async function activatedFunctionItem(
  db: Db,
  fn: { id: number; abiFunction: CallableItem | null; formattedAbiFunction: string; contractId: number },
): Promise<CallableItem> {
  if (fn.abiFunction) return fn.abiFunction;
  const { rows } = await db.query<{ formattedAbi: string[] }>(
    'SELECT formatted_abi AS "formattedAbi" FROM contracts WHERE id = $1',
    [fn.contractId],
  );
  const item = parseActivatedFunction(rows[0]?.formattedAbi ?? [], fn.formattedAbiFunction);
  await db.query('UPDATE contract_activated_functions SET abi_function = $2 WHERE id = $1 AND abi_function IS NULL', [
    fn.id,
    JSON.stringify(item),
  ]);
  return item;
}

/**
 * Activates a state-changing function of the contract (or its `receive()`); activating it again returns the same
 * activation, with the limits given changed (a limit left out keeps its value; a new activation's is 0). Only a
 * payable function takes limits above 0.
 */
export async function activateFunction(
  db: Db,
  projectId: number,
  input: { contractId: number; formattedAbiFunction: string; maxValuePerTransaction?: string; maxValuePerDay?: string },
): Promise<ContractActivatedFunction> {
  const contract = await getContract(db, projectId, input.contractId);
  const fn = findContractFunction(
    { ...contract, abi: await parsedAbi(db, contract) },
    input.formattedAbiFunction,
    'activate',
  );
  for (const field of ['maxValuePerTransaction', 'maxValuePerDay'] as const) {
    if (input[field] !== undefined && input[field] !== '0') refuseValueOnNonPayable(fn, field);
  }
  const { rows } = await db.query<ContractActivatedFunction>(
    `INSERT INTO contract_activated_functions (contract_id, formatted_abi_function, signature, abi_function,
       max_value_per_transaction, max_value_per_day)
     VALUES ($1, $2, $3, $4, coalesce($5::numeric, 0), coalesce($6::numeric, 0))
     ON CONFLICT (contract_id, signature) DO UPDATE SET active = true, abi_function = EXCLUDED.abi_function,
       max_value_per_transaction = coalesce($5::numeric, contract_activated_functions.max_value_per_transaction),
       max_value_per_day = coalesce($6::numeric, contract_activated_functions.max_value_per_day),
       updated_at = CASE WHEN contract_activated_functions.active
                          AND contract_activated_functions.max_value_per_transaction
                              = coalesce($5::numeric, contract_activated_functions.max_value_per_transaction)
                          AND contract_activated_functions.max_value_per_day
                              = coalesce($6::numeric, contract_activated_functions.max_value_per_day)
                         THEN contract_activated_functions.updated_at ELSE now() END
     RETURNING ${ACTIVATED_FUNCTION_COLUMNS}`,
    [
      contract.id,
      fn.formatted,
      fn.signature,
      JSON.stringify(fn.item),
      input.maxValuePerTransaction ?? null,
      input.maxValuePerDay ?? null,
    ],
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
  const fn = findContractFunction(
    { ...contract, abi: await parsedAbi(db, contract) },
    input.formattedAbiFunction,
    'activate',
  );
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
    `SELECT ${ACTIVATED_FUNCTION_COLUMNS}
     FROM contract_activated_functions WHERE contract_id = $1 AND active ORDER BY id`,
    [contract.id],
  );
  return rows;
}
