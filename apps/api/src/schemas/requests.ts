import Type from 'typebox';
import { TRANSACTION_STATUSES } from './entities.ts';

/** Request-side building blocks. Enums are plain `enum`s so a wrong value gets one clear message. */

export const RequestAddress = Type.String({
  pattern: '^0x[0-9a-fA-F]{40}$',
  description: 'An EVM address: 0x followed by 40 hex digits (any case).',
});

export const RequestUuid = (description: string) => Type.String({ format: 'uuid', description });

/** An RFC 3339 time as a request gives it: what PostgreSQL cannot store is refused up front (see http/validation.ts). */
export const RequestDateTime = (description: string) =>
  Type.String({
    format: 'date-time',
    description: `${description} An RFC 3339 date-time; the year 0000 and UTC offsets of 16 hours or more are refused.`,
  });

export const ContractIdField = Type.Integer({ minimum: 1, maximum: 2_147_483_647, description: 'Contract id.' });

/** A function's arguments as the API takes them (execute-transaction, call-contract-function). */
export const FunctionArgsField = Type.Array(Type.String({ maxLength: 65_536 }), {
  maxItems: 64,
  description:
    'One string per argument: decimal or 0x integers, true/false, addresses, hex bytes, JSON for arrays and tuples.',
});
/**
 * An amount of wei as a decimal string without sign or leading zeros: at most 77 digits, so always below 2^256
 * (what a transaction's value can hold).
 */
export const WeiString = (description: string) =>
  Type.String({
    pattern: '^(0|[1-9][0-9]{0,76})$',
    maxLength: 77,
    description: `${description} In wei, as a decimal string.`,
  });

export const AbiString = (description: string) => Type.String({ minLength: 1, maxLength: 4096, description });

export const WebhookUrl = Type.String({
  format: 'uri',
  pattern: '^https?://',
  maxLength: 2048,
  description: 'http(s) URL that receives the webhooks.',
});

export const WebhookMaxRetries = Type.Integer({
  minimum: 0,
  maximum: 20,
  description: 'Delivery attempts after the first one before a record is marked failed.',
});

export const PageQuery = {
  page: Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' }),
  perPage: Type.Integer({ minimum: 1, maximum: 100, default: 20, description: 'Items per page (at most 100).' }),
};

/** Paging of a list answered whole before paging existed: a first page large enough for what it held then. */
export const pageFields = (defaultPerPage: number, maxPerPage: number) => ({
  page: Type.Optional(
    Type.Integer({ minimum: 1, maximum: 1_000_000, default: 1, description: 'Page number, from 1.' }),
  ),
  perPage: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: maxPerPage,
      default: defaultPerPage,
      description: `Items per page (at most ${maxPerPage.toLocaleString('en-US')}; ${defaultPerPage.toLocaleString('en-US')} when absent).`,
    }),
  ),
});

export const TRANSACTION_STATUS_FILTERS = [...TRANSACTION_STATUSES, 'failed'] as const;

export const TransactionStatusFilter = Type.Unsafe<(typeof TRANSACTION_STATUS_FILTERS)[number]>({
  type: 'string',
  enum: [...TRANSACTION_STATUS_FILTERS],
  description:
    'Only transactions with this status. `failed` matches broadcast-failed, monitor-failed and reverted (the coarse view).',
});

export function pageMeta(page: number, perPage: number, totalItems: number) {
  return { pageNumber: page, perPage, totalPage: Math.ceil(totalItems / perPage), totalItems };
}

export const FunctionSelectorBody = Type.Object(
  {
    contractId: ContractIdField,
    formattedAbiFunction: AbiString('Human-readable ABI of the function, as in the contract’s ABI.'),
  },
  { additionalProperties: false },
);

/** activate-contract-function: the function, and the spending limits of a payable one. */
export const ActivateFunctionBody = Type.Object(
  {
    ...FunctionSelectorBody.properties,
    maxValuePerTransaction: Type.Optional(
      WeiString(
        'The most value one transaction of this function may send (payable functions only). Absent: "0" for a new activation, unchanged for an active one.',
      ),
    ),
    maxValuePerDay: Type.Optional(
      WeiString(
        'The most value the transactions of this function may send in one UTC day, all together (payable functions only). Absent: "0" for a new activation, unchanged for an active one.',
      ),
    ),
  },
  { additionalProperties: false },
);
