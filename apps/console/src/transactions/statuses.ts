/** The status filter's values: every stored status, and `failed` for the three failure statuses. */
export const STATUS_FILTERS = [
  'created',
  'processing',
  'broadcasted',
  'succeeded',
  'reverted',
  'broadcast-failed',
  'monitor-failed',
  'cancelling',
  'cancelled',
  'failed',
] as const;

export type StatusFilter = (typeof STATUS_FILTERS)[number];

export const isStatusFilter = (value: unknown): value is StatusFilter =>
  typeof value === 'string' && (STATUS_FILTERS as readonly string[]).includes(value);
