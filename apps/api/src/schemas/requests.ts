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

// ── What a subscription watches (create-subscription, update-subscription; the subscription's answer) ──────────

const FilterValueSchema = Type.Union([Type.String({ maxLength: 1024 }), Type.Number(), Type.Boolean()], {
  description:
    'A value of the parameter: an address, an integer (a decimal string, or a number up to 2^53), a bool, hex bytes, or a string.',
});

export const AddressesField = Type.Array(RequestAddress, {
  maxItems: 10_000,
  description:
    'More contracts to watch beside `address` (distinct, any case). `address` and `addresses` together: at most `MAX_ADDRESSES_PER_SUBSCRIPTION` (1,000 unless the deployment sets otherwise). One `eth_getLogs` request asks for all of them.',
});

export const FormattedAbiEventsField = Type.Array(Type.String({ minLength: 1, maxLength: 4096 }), {
  maxItems: 19,
  description:
    'More events to watch beside `formattedAbiEvent`, each a human-readable ABI event: 20 events in all. Every record says which event it is (`eventName`, `eventSignature`).',
});

export const FiltersField = Type.Record(
  Type.String({ maxLength: 256 }),
  Type.Array(FilterValueSchema, { minItems: 1, maxItems: 1_000 }),
  {
    maxProperties: 3,
    description:
      'Accepted values per indexed parameter, by name (e.g. `{"to": ["0x…"]}`): a log is recorded when each filtered parameter has one of its values (OR within a parameter, AND across them). Sent to the node as `eth_getLogs` topics. The parameter must be indexed in every event of the subscription, at the same position. Up to 1,000 values with those of `in` conditions.',
  },
);

export const ConditionsField = Type.Array(
  Type.Object(
    {
      field: Type.String({ minLength: 1, maxLength: 256, description: 'A decoded argument, by name (or position).' }),
      op: Type.Union(
        [
          Type.Literal('eq'),
          Type.Literal('neq'),
          Type.Literal('gt'),
          Type.Literal('gte'),
          Type.Literal('lt'),
          Type.Literal('lte'),
          Type.Literal('in'),
        ],
        {
          description:
            '`eq`, `neq`, `in` (a list) for every type; `gt`, `gte`, `lt`, `lte` for integers. Integers compare as integers, addresses and bytes case-insensitively, strings exactly.',
        },
      ),
      value: Type.Union([FilterValueSchema, Type.Array(FilterValueSchema, { minItems: 1, maxItems: 1_000 })]),
    },
    { additionalProperties: false },
  ),
  {
    maxItems: 20,
    description:
      'Conditions on decoded values, all of which must hold for a log to be recorded. Each field must be a parameter of every event of the subscription, of the same type.',
  },
);
