// Amounts of a network's native coin as the API gives them (wei, decimal strings), written for a person: the coin
// amount first, the exact wei beside it. Plain bigint arithmetic: the first load carries no library for it.

const WEI_PER_COIN = 10n ** 18n;

/** A wei amount as a decimal string is the API's form: digits only, no sign, no leading zero. */
export const isWei = (text: string) => /^(0|[1-9]\d{0,76})$/.test(text);

/** `500000000000000000` → `0.5`: the coin amount of a wei amount, every digit kept. */
export function coinOf(wei: string | bigint): string {
  const value = BigInt(wei);
  const whole = value / WEI_PER_COIN;
  const fraction = (value % WEI_PER_COIN).toString().padStart(18, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : whole.toString();
}

/** `0.5 ETH (500000000000000000 wei)`. */
export function formatWei(wei: string | bigint, coin = 'ETH'): string {
  return `${coinOf(wei)} ${coin} (${BigInt(wei)} wei)`;
}

/** A spending limit: `no value` when it is 0 (the function may send none), else its amount. */
export function formatLimit(wei: string, coin = 'ETH'): string {
  return BigInt(wei) === 0n ? 'no value' : formatWei(wei, coin);
}

/** A balance for reading at a glance: the coin amount to 4 decimals (rounded down), `<0.0001` for dust. */
export function formatBalance(wei: string | bigint, coin = 'ETH'): string {
  const value = BigInt(wei);
  if (value === 0n) return `0 ${coin}`;
  const tenThousandths = value / 10n ** 14n;
  if (tenThousandths === 0n) return `<0.0001 ${coin}`;
  const whole = tenThousandths / 10_000n;
  const fraction = (tenThousandths % 10_000n).toString().padStart(4, '0').replace(/0+$/, '');
  return `${whole.toLocaleString('en-US')}${fraction ? `.${fraction}` : ''} ${coin}`;
}

/** A gas price: `1.875 gwei (1875000000 wei)`. */
export function formatGwei(wei: string | bigint): string {
  const value = BigInt(wei);
  const whole = value / 10n ** 9n;
  const fraction = (value % 10n ** 9n).toString().padStart(9, '0').replace(/0+$/, '');
  return `${whole}${fraction ? `.${fraction}` : ''} gwei (${value} wei)`;
}
